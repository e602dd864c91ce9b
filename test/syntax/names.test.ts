import t from 'tap';
import { identOccurrences, lookupDeclarations, namespacePrefixes, resolveName } from '../../src/syntax/names.ts';
import { parseSource } from '../../src/syntax/source.ts';

t.test('namespace prefixes', async (t) => {
  t.same(namespacePrefixes('A.B'), ['A.B', 'A', '']);
  t.same(namespacePrefixes(''), ['']);
});

t.test('resolution: current namespace and parents, opens, _root_', async (t) => {
  const declared = new Set(['A.B.f', 'A.g', 'h', 'C.k', 'A.C.m']);
  t.same(resolveName('f', { namespace: 'A.B', opens: [] }, declared), ['A.B.f']);
  t.same(resolveName('g', { namespace: 'A.B', opens: [] }, declared), ['A.g']);
  t.same(resolveName('B.f', { namespace: 'A', opens: [] }, declared), ['A.B.f']);
  t.same(resolveName('k', { namespace: '', opens: ['C'] }, declared), ['C.k']);
  t.same(
    resolveName('m', { namespace: 'A', opens: ['C'] }, declared),
    ['A.C.m'],
    'an open is relative to the namespace too',
  );
  t.same(resolveName('_root_.h', { namespace: 'A', opens: [] }, declared), ['h']);
  t.same(resolveName('nope', { namespace: 'A', opens: ['C'] }, declared), []);
});

t.test('selection by name: exact full name first, then short names; several matches are all returned', async (t) => {
  const f = parseSource(
    'namespace X\ntheorem foo : True := trivial\nend X\nnamespace Y\ntheorem foo : True := trivial\nend Y\ntheorem bar : True := trivial\n',
  );
  t.same(
    lookupDeclarations(f, 'X.foo').map((d) => d.fullName),
    ['X.foo'],
  );
  t.same(
    lookupDeclarations(f, 'foo').map((d) => d.fullName),
    ['X.foo', 'Y.foo'],
  );
  t.same(
    lookupDeclarations(f, 'bar').map((d) => d.fullName),
    ['bar'],
  );
});

t.test('identifier occurrences skip keywords, strings and comments', async (t) => {
  const f = parseSource('theorem t : f x = g := by\n  -- h\n  simp [foo, "bar"]\n  exact Nat.le_refl _\n');
  t.same(
    identOccurrences(f.sig).map((o) => o.name),
    ['t', 'f', 'x', 'g', 'simp', 'foo', 'exact', 'Nat.le_refl'],
  );
});
