import t from 'tap';
import { parseSource } from '../../src/syntax/source.ts';
import { declName, selectDeclarations } from '../../src/tools/selection.ts';

const src = `def helper := 1
theorem a : True := trivial
namespace X
theorem foo : True := trivial
end X
namespace Y
theorem foo : True := trivial
theorem bar : True := trivial
end Y
theorem last : True := trivial
`;
const file = parseSource(src);
const names = (r: ReturnType<typeof selectDeclarations>) => r.decls.map((d) => declName(d, file));

t.test('default: every theorem; theorems_only false: every declaration', async (t) => {
  t.same(names(selectDeclarations(file, {})), ['a', 'X.foo', 'Y.foo', 'Y.bar', 'last']);
  t.same(names(selectDeclarations(file, { theorems_only: false })), ['helper', 'a', 'X.foo', 'Y.foo', 'Y.bar', 'last']);
  t.equal(selectDeclarations(file, {}).explicit, false);
});

t.test('names: exact full name, then short-name resolution, ambiguity and absence are errors', async (t) => {
  t.same(names(selectDeclarations(file, { names: ['X.foo'] })), ['X.foo']);
  t.same(
    names(selectDeclarations(file, { names: ['bar'] })),
    ['Y.bar'],
    'a short name resolving to one namespaced declaration',
  );
  const amb = selectDeclarations(file, { names: ['foo'] });
  t.same(amb.decls, []);
  t.same(amb.errors, ["Name 'foo' is ambiguous; candidates: X.foo, Y.foo"]);
  const missing = selectDeclarations(file, { names: ['helper'] });
  t.match(missing.errors[0], /'helper' not found among theorems/);
  t.same(names(selectDeclarations(file, { names: ['helper'], theorems_only: false })), ['helper']);
  t.equal(selectDeclarations(file, { names: ['a'] }).explicit, true);
});

t.test('indices: 0-based, negative from the end, out of range is an error', async (t) => {
  t.same(names(selectDeclarations(file, { indices: [0, -1] })), ['a', 'last']);
  t.same(names(selectDeclarations(file, { indices: [0], theorems_only: false })), ['helper']);
  t.match(selectDeclarations(file, { indices: [5] }).errors[0], /Index 5 is out of range: there are 5 theorems/);
  t.match(selectDeclarations(file, { indices: [-6] }).errors[0], /out of range/);
});

t.test('anonymous declarations are named by where they start, as AXLE names them (`_example_12_0`)', async (t) => {
  const f = parseSource(
    'theorem a : True := trivial\n\nexample : True := trivial\n/-- doc -/ example : 1 = 1 := rfl\n  instance : Inhabited Nat := ⟨0⟩\n',
  );
  t.same(
    f.decls.map((d) => declName(d, f)),
    ['a', '_example_3_0', '_example_4_0', '_instance_5_2'],
    '1-based line, 0-based column of the declaration (doc comment included)',
  );
  const two = parseSource('example : True := trivial; example : 2 = 2 := rfl\n');
  const [x, y] = two.decls.map((d) => declName(d, two));
  t.not(x, y, 'two on one line get different names');
});

t.test('names: an anonymous declaration is selected by its positional name (theorems_only false)', async (t) => {
  const f = parseSource('theorem a : True := trivial\nexample : True := trivial\nexample : 1 = 1 := rfl\n');
  const sel = selectDeclarations(f, { names: ['_example_3_0'], theorems_only: false });
  t.same(sel.errors, []);
  t.same(
    sel.decls.map((d) => declName(d, f)),
    ['_example_3_0'],
  );
  t.match(selectDeclarations(f, { names: ['_example_3_0'] }).errors[0], /not found among theorems/);
});
