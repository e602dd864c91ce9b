import t from 'tap';
import { parseSource } from '../../src/syntax/source.ts';
import { findHaves, findSorries, parseTacticBlock, walkTactics } from '../../src/syntax/tactics.ts';

function block(src: string) {
  const f = parseSource(src);
  const d = f.decls[0]!;
  const [from, to] = d.bodySig!;
  return { f, d, tree: parseTacticBlock(f.sig, from, to) };
}
const heads = (src: string) => [...walkTactics(block(src).tree)].map((i) => i.head);

t.test('sequences, bullets, case/next, <;>, nested by, semicolons', async (t) => {
  const src =
    'theorem t : P ∧ Q := by\n  constructor\n  · simp\n    ring\n  · case h => exact foo\n  all_goals simp <;> ring\n  exact (by simp); rfl\n';
  const { tree } = block(src);
  t.same(
    tree.items.map((i) => i.head),
    ['constructor', '·', '·', 'all_goals', 'exact', 'rfl'],
  );
  t.same(
    tree.items[1]!.children[0]!.items.map((i) => i.head),
    ['simp', 'ring'],
  );
  t.same(heads(src), [
    'constructor',
    '·',
    'simp',
    'ring',
    '·',
    'case',
    'exact',
    'all_goals',
    'simp',
    'exact',
    'simp',
    'rfl',
  ]);
});

t.test('a one-line by block ends at the line break; column-0 tactic blocks', async (t) => {
  t.same(heads('theorem t : True := by simp\n'), ['simp']);
  t.same(heads('theorem t : True := by\nsimp\nexact trivial\n'), ['simp', 'exact']);
});

t.test('induction alternatives and have with nested by are children', async (t) => {
  const src =
    'theorem t (n : Nat) : n = n := by\n  induction n with\n  | zero => rfl\n  | succ k ih =>\n    simp\n    exact ih\n  have h : 1 = 1 := by\n    norm_num\n';
  t.same(heads(src), ['induction', 'rfl', 'simp', 'exact', 'have', 'norm_num']);
});

t.test('have forms: name, type, proof spans, tactic and term level, goal form', async (t) => {
  const src =
    'theorem t : True := by\n  have h₁ : 1 = 1 := by\n    norm_num\n  have := foo\n  have ⟨a, b⟩ : A ∧ B := ⟨x, y⟩\n  have h₂ : ∀ x, P x\n  · intro x; sorry\n  obtain ⟨c, hc⟩ := h\n  exact (have k : 2 = 2 := rfl; trivial)\n';
  const { f, d } = block(src);
  const hs = findHaves(f.sig, d.bodySig![0], d.bodySig![1], [d.bodySig!]);
  const s = (x: { start: number; end: number } | undefined) => (x ? f.text.slice(x.start, x.end) : null);
  t.same(
    hs.map((h) => [h.keyword, s(h.binder), s(h.type), s(h.proof), h.proofForm]),
    [
      ['have', 'h₁', '1 = 1', 'by\n    norm_num', 'tactic'],
      ['have', null, null, 'foo', 'term'],
      ['have', '⟨a, b⟩', 'A ∧ B', '⟨x, y⟩', 'term'],
      ['have', 'h₂', '∀ x, P x', null, 'none'],
      ['obtain', '⟨c, hc⟩', null, 'h', 'term'],
      ['have', 'k', '2 = 2', 'rfl', 'term'],
    ],
  );
});

t.test('term-mode have in a term proof ends at the next line of its column', async (t) => {
  const src = 'theorem t : Q :=\n  have h : P := by\n    simp\n  have g : R := f h\n  g.elim\n';
  const { f, d } = block(src);
  const hs = findHaves(f.sig, d.bodySig![0], d.bodySig![1]);
  t.same(
    hs.map((h) => f.text.slice(h.proof!.start, h.proof!.end)),
    ['by\n    simp', 'f h'],
  );
  t.same(
    hs.map((h) => h.level),
    ['term', 'term'],
  );
});

t.test('sorry and admit positions, not inside strings or comments', async (t) => {
  const src = 'theorem t : True := by\n  -- sorry\n  have : "sorry" = "sorry" := sorry\n  admit\n';
  const { f, d } = block(src);
  const ss = findSorries(f.sig, d.bodySig![0], d.bodySig![1]);
  t.same(
    ss.map((s) => f.lines.toLean(s.start)),
    [
      { line: 3, column: 30 },
      { line: 4, column: 2 },
    ],
  );
});
