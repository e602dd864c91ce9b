/** The structural rewrites, rule by rule, on hand-written cases (pure: no Lean). */
import t from 'tap';
import { applyEdits } from '../../src/syntax/edits.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { havesToSorry } from '../../src/tools/have2sorry.ts';
import { renameInSource } from '../../src/syntax/renaming.ts';
import { t2s } from './sorry-all.ts';

t.test(
  'theorem2sorry: term, tactic and equation proofs all become the term sorry (AXLE); termination clauses go; sorry stays',
  async (t) => {
    t.equal(t2s('theorem a : 1 = 1 := rfl\n'), 'theorem a : 1 = 1 := sorry\n');
    t.equal(
      t2s('theorem b : 1 = 1 := by\n  simp\n  rfl\n\ndef keep := 3\n'),
      'theorem b : 1 = 1 := sorry\n\ndef keep := 3\n',
    );
    t.equal(
      t2s('theorem c : ∀ n : Nat, n = n\n  | 0 => rfl\n  | n+1 => rfl\n'),
      'theorem c : ∀ n : Nat, n = n := sorry\n',
    );
    t.equal(
      t2s('theorem d (n : Nat) : n = n := by\n  induction n <;> rfl\ntermination_by n\ndecreasing_by omega\n'),
      'theorem d (n : Nat) : n = n := sorry\n',
    );
    t.equal(t2s('theorem e : True := sorry\n'), 'theorem e : True := sorry\n');
    t.equal(t2s('theorem g : True := by sorry\n'), 'theorem g : True := sorry\n', 'by sorry becomes the term');
    t.equal(
      t2s('/-- doc -/\n@[simp] theorem f (x : ℝ) :\n    |x| ≥ 0 := by positivity\n'),
      '/-- doc -/\n@[simp] theorem f (x : ℝ) :\n    |x| ≥ 0 := sorry\n',
    );
  },
);

t.test('have2sorry: every have proof, outermost only; statements and structure kept', async (t) => {
  const src =
    'theorem t : P := by\n  have h₁ : A := by\n    have inner : B := foo\n    exact bar inner\n  have h₂ : C := baz h₁\n  have := qux\n  have h₃ : D\n  · exact d\n  exact done h₁ h₂\n';
  const f = parseSource(src);
  const r = havesToSorry(f, f.decls[0]!);
  t.equal(
    applyEdits(src, r.edits),
    'theorem t : P := by\n  have h₁ : A := sorry\n  have h₂ : C := sorry\n  have := qux\n  have h₃ : D\n  · exact d\n  exact done h₁ h₂\n',
  );
  t.equal(r.warnings.length, 2);
  t.match(r.warnings[0], /without a stated type kept .* line 6/);
  t.match(r.warnings[1], /without ':=' kept .* line 7/);
  const term = 'theorem u : Q :=\n  have h : P := by simp\n  h.elim\n';
  const g = parseSource(term);
  t.equal(applyEdits(term, havesToSorry(g, g.decls[0]!).edits), 'theorem u : Q :=\n  have h : P := sorry\n  h.elim\n');
});

t.test('rename: declaration and references, namespaces, opens, _root_, projections', async (t) => {
  const src =
    'namespace A\ntheorem foo : True := trivial\ntheorem useFoo : True := foo\nend A\nopen A in\ntheorem viaOpen : True := foo\ntheorem viaFull : True := A.foo\ntheorem proj (h : P ↔ Q) : P → Q := A.foo.mp\n';
  const r = renameInSource(src, { 'A.foo': 'A.bar' });
  t.same(r.errors, []);
  t.equal(
    r.output,
    'namespace A\ntheorem bar : True := trivial\ntheorem useFoo : True := bar\nend A\nopen A in\ntheorem viaOpen : True := bar\ntheorem viaFull : True := A.bar\ntheorem proj (h : P ↔ Q) : P → Q := A.bar.mp\n',
  );
  const moved = renameInSource(src, { 'A.foo': 'B.foo' });
  t.match(moved.output, /theorem _root_\.B\.foo : True := trivial/, 'leaving the namespace needs _root_');
  t.match(moved.output, /theorem viaFull : True := B\.foo/);
});

t.test('rename: dot notation, inductive constructors, non-transitive, unknown names', async (t) => {
  const dot =
    'def Nat.double (n : Nat) : Nat := 2 * n\ntheorem t (n : Nat) : n.double = 2 * n := rfl\ntheorem u (n : Nat) : (n + 1).double = 2 * (n + 1) := rfl\n';
  t.equal(renameInSource(dot, { 'Nat.double': 'Nat.twice' }).output, dot.replaceAll('double', 'twice'));
  const ind =
    'inductive Color\n  | red\n  | green\nopen Color\ndef f : Color → Nat\n  | Color.red => 0\n  | .green => 1\ndef g := red\n';
  t.equal(
    renameInSource(ind, { Color: 'Hue' }).output,
    'inductive Hue\n  | red\n  | green\nopen Hue\ndef f : Hue → Nat\n  | Hue.red => 0\n  | .green => 1\ndef g := red\n',
  );
  const chain = 'def A := 1\ndef B := A\ndef C := B\n';
  t.equal(
    renameInSource(chain, { A: 'B', B: 'C' }).output,
    'def B := 1\ndef C := B\ndef C := C\n',
    'A→B and B→C: A ends up as B',
  );
  t.same(renameInSource(chain, { Z: 'Y' }).errors, ["Declaration 'Z' not found (rename takes fully qualified names)"]);
});
