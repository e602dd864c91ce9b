/** The one run-time regex builder: template text is pattern syntax, interpolated values are literals. */
import t from 'tap';
import { escapeRegExp, regex } from '../../src/util/regex.ts';

t.test('every character with a meaning in a pattern is matched literally', async (t) => {
  const special = '.*+?^${}()|[]\\';
  t.equal(regex`^${special}$`.test(special), true);
  t.equal(regex`^${'a.c'}$`.test('abc'), false, '`.` is a dot, not any character');
  t.equal(escapeRegExp('x-y/z'), 'x-y/z', 'characters without a meaning outside a class are kept');
});

t.test('the template is pattern syntax, escapes as in a regex literal', async (t) => {
  const m = regex`^[^\n]*\nset (\d+) ${'-- c'}\n`.exec('a\nset 42 -- c\n');
  t.equal(m?.[1], '42');
  t.equal(regex`(?:^|[^\w.'?!])${'h'}(?:$|[^\w'?!])`.test('exact h.1'), true);
  t.equal(regex`(?:^|[^\w.'?!])${'h'}(?:$|[^\w'?!])`.test('x.h hh h2'), false);
});
