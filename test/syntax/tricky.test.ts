/** Tricky layouts a splitter must survive (strings, comments, indentation, `in`, …), numbered. */
import t from 'tap';
import { isTrivia, lex } from '../../src/syntax/lexer.ts';
import { parseSource, printSource } from '../../src/syntax/source.ts';
import { parseTacticBlock, walkTactics } from '../../src/syntax/tactics.ts';

const kinds = (src: string) => parseSource(src).commands.map((c) => `${c.kind}:${c.keyword}`);

t.test('8: `2.` and `1.5` are numbers, `h.1` a projection', async (t) => {
  const toks = lex('x = 1.5 ∧ h.1 = y.2.1')
    .filter((x) => !isTrivia(x.kind))
    .map((x) => x.kind);
  t.same(toks, [
    'ident',
    'symbol',
    'number',
    'symbol',
    'ident',
    'field-idx',
    'symbol',
    'ident',
    'field-idx',
    'field-idx',
  ]);
});

t.test('10: CRLF files stay lossless and split the same', async (t) => {
  const lf = 'theorem a : True := by\n  trivial\n\ntheorem b : True := trivial\n';
  const crlf = lf.replace(/\n/g, '\r\n');
  t.equal(printSource(parseSource(crlf)), crlf);
  t.same(
    parseSource(crlf).decls.map((d) => d.name),
    ['a', 'b'],
  );
});

t.test('20: notation tokens from imports are operators, never errors', async (t) => {
  const src =
    "theorem s (f : ℕ → ℝ) : ∑ x ∈ Finset.range 3, f x ≤ ‖f 0‖ + ⌊(2 : ℝ)⌋₊ := by\n  sorry\ntheorem u : f ⁻¹' s = ∅ := sorry\n";
  const f = parseSource(src);
  t.same(
    f.decls.map((d) => [d.name, d.bodyForm]),
    [
      ['s', 'tactic'],
      ['u', 'term'],
    ],
  );
  t.notOk(lex(src).some((x) => x.kind === 'error'));
});

t.test('21: calc steps, first | … | …, next, · and . bullets', async (t) => {
  const src =
    'theorem c (a b : Nat) (h : a = b) : a = b := by\n  calc a = b := h\n    _ = b := rfl\n  first | rfl | simp\n  next => rfl\n  . exact h\n';
  const f = parseSource(src);
  const d = f.decls[0]!;
  const heads = [...walkTactics(parseTacticBlock(f.sig, d.bodySig![0], d.bodySig![1]))].map((i) => i.head);
  t.same(
    heads.filter((h) => ['calc', 'first', 'next', '.'].includes(h)),
    ['calc', 'first', 'next', '.'],
  );
});

t.test('23: a later `#exit` or `import` is its own command', async (t) => {
  t.same(kinds('theorem a : True := trivial\n#exit\ntheorem b : True := trivial\n'), [
    'declaration:theorem',
    'hash:#exit',
    'declaration:theorem',
  ]);
});

t.test('26: anonymous `end`, and files that end without closing their scopes', async (t) => {
  const f = parseSource(
    'section\nnamespace A\ntheorem x : True := trivial\nend A\nend\nnamespace B\ntheorem y : True := trivial\n',
  );
  t.same(
    f.decls.map((d) => d.fullName),
    ['A.x', 'B.y'],
  );
  t.same(
    f.commands.map((c) => c.kind),
    ['section', 'namespace', 'declaration', 'end', 'end', 'namespace', 'declaration'],
  );
});

t.test('11: keywords inside terms never end a declaration', async (t) => {
  const src =
    'def f (n : Nat) : Nat :=\n  match n with\n  | 0 => if true then 1 else 2\n  | k + 1 => (fun x => x) k\ntheorem g : True := by\n  show True\n  exact (by trivial : True)\n';
  t.same(kinds(src), ['declaration:def', 'declaration:theorem']);
});
