import fc from 'fast-check';
import t from 'tap';
import { applyEdits, EditConflictError, insert, remove, replace } from '../../src/syntax/edits.ts';

t.test('edits apply in one pass; untouched text is identical', async (t) => {
  const s = 'theorem a : P := by simp\ntheorem b : Q := rfl\n';
  const out = applyEdits(s, [
    replace(s.indexOf('rfl'), s.indexOf('rfl') + 3, 'sorry'),
    replace(s.indexOf('by simp'), s.indexOf('by simp') + 7, 'sorry'),
  ]);
  t.equal(out, 'theorem a : P := sorry\ntheorem b : Q := sorry\n');
  t.equal(applyEdits('ab', [insert(1, 'x'), insert(1, 'y')]), 'axyb', 'insertions at one point keep their order');
  t.equal(applyEdits('abc', [remove(0, 1), insert(3, '!')]), 'bc!');
  t.equal(applyEdits('abc', []), 'abc');
});

t.test('overlaps and out-of-range edits are refused', async (t) => {
  t.throws(() => applyEdits('abcdef', [replace(0, 3, 'x'), replace(2, 4, 'y')]), EditConflictError);
  t.throws(() => applyEdits('abc', [replace(2, 5, 'x')]), RangeError);
  t.throws(() => applyEdits('abc', [insert(2, 'x'), replace(1, 3, 'y')]), EditConflictError);
});

t.test('property: text outside random disjoint edits is preserved', async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 100 }), fc.array(fc.nat(), { maxLength: 10 }), (s, cuts) => {
      const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b);
      const edits = [];
      for (let i = 0; i + 1 < points.length; i += 2) edits.push(replace(points[i]!, points[i + 1]!, '<>'));
      const out = applyEdits(s, edits);
      let expected = '';
      let pos = 0;
      for (const e of edits) {
        expected += s.slice(pos, e.start) + '<>';
        pos = e.end;
      }
      return out === expected + s.slice(pos);
    }),
  );
  t.pass();
});
