import t from 'tap';
import { typeKey } from '../../src/tools/type-key.ts';

t.test('outer binder names do not matter; everything else does', async (t) => {
  t.equal(typeKey('∀ (n m : ℕ), n + m = m + n'), typeKey('∀ (a b : ℕ),  a + b = b + a'));
  t.equal(
    typeKey('∀ {α : Type u_1} [inst : Add α] (x : α), x + x = x'),
    typeKey('∀ {β : Type u_1} [i : Add β] (y : β), y + y = y'),
  );
  t.not(
    typeKey('∀ (n m : ℕ), n + m = m + n'),
    typeKey('∀ (n m : ℕ), m + n = n + m'.replace('m + n = n + m', 'n + m = n + m')),
  );
  t.not(typeKey('∀ (x : ℕ), x = c'), typeKey('∀ (c : ℕ), c = c'), 'a free name never collides with a bound one');
  t.not(typeKey('∀ (n : ℕ), n = n'), typeKey('∀ (n : ℤ), n = n'));
  t.not(
    typeKey('∀ [Add α] (x : α), x = x'),
    typeKey('∀ [Add β] (x : β), x = x'),
    'an anonymous instance binder binds no name',
  );
  t.equal(typeKey('u = 1', new Map([['u', 'u_1']])), typeKey('u_1 = 1'));
});
