/** Syntactic dependencies and standalone content on hand-checked samples. */
import t from 'tap';
import { boundNames, commandDependencies, syntacticDependencies } from '../../src/syntax/dependencies.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { dependencyClosure, standaloneContent, standaloneIndex } from '../../src/syntax/standalone.ts';

const SAMPLE = `import Mathlib
open Nat

namespace Foo
variable (n : ℕ)

def double (k : ℕ) : ℕ := 2 * k

theorem double_eq (k : ℕ) : double k = k + k := by
  unfold double
  omega

end Foo

namespace Bar
def unused : ℕ := 3
end Bar

open Foo in
theorem uses (x : ℕ) (h : x = 1) : double x = 2 := by
  rw [double_eq, h]
  <;> simp [Nat.add_comm]

mutual
def isEven : ℕ → Bool
  | 0 => true
  | n+1 => isOdd n
def isOdd : ℕ → Bool
  | 0 => false
  | n+1 => isEven n
end

theorem ev : isEven 2 = true := by decide
`;

const depsOf = (src: string) => {
  const f = parseSource(src);
  const deps = syntacticDependencies(f);
  return { f, deps, of: (name: string) => deps.get(f.decls.find((d) => d.fullName === name)!)! };
};

t.test(
  'local names resolve through the namespace and opens; bound names, tactics and the own name are not references',
  async (t) => {
    const { of } = depsOf(SAMPLE);
    t.same(of('Foo.double'), { local: [], external: ['ℕ'] });
    t.same(
      of('Foo.double_eq'),
      { local: ['Foo.double'], external: ['ℕ'] },
      'double resolves in namespace Foo; unfold/omega are tactics',
    );
    t.same(
      of('uses'),
      { local: ['Foo.double', 'Foo.double_eq'], external: ['ℕ', 'Nat.add_comm'] },
      'open Foo in: resolved through the prefix; x and h are bound',
    );
    t.same(
      of('isEven'),
      { local: ['isOdd'], external: ['ℕ', 'Bool', 'true'] },
      'mutual members see each other; n in n+1 is a pattern variable',
    );
    t.same(of('ev'), { local: ['isEven'], external: ['true'] });
  },
);

t.test('open scoped makes no name visible; open does', async (t) => {
  // [lean4 src/Lean/Elab/Open.lean, elabOpenDecl: `open scoped` only activates scoped extensions.]
  const { of } = depsOf(
    'namespace D\ndef x : Nat := 1\nend D\nopen scoped D\ndef a : Nat := x\nopen scoped D in\ndef b : Nat := x\nopen D\ndef c : Nat := x\n',
  );
  t.same(of('a').local, [], 'open scoped D: x is not D.x');
  t.same(of('b').local, [], 'open scoped D in: neither');
  t.same(of('c').local, ['D.x'], 'open D: x is D.x');
});

t.test('later declarations are not dependencies; _root_ and the declaration-name namespace resolve', async (t) => {
  const { of } = depsOf(
    'def a : Nat := b\ndef b : Nat := 1\nnamespace N\ndef c : Nat := 2\nend N\ndef N.d : Nat := c\ndef e : Nat := _root_.b + N.c\n',
  );
  t.same(of('a').local, [], 'b is declared after a');
  t.same(of('N.d').local, ['N.c'], 'def N.d elaborates in namespace N');
  t.same(of('e').local, ['b', 'N.c']);
});

t.test('binders: groups, fun/∀/∃, set-builder, tactic introductions, match variables, structure fields', async (t) => {
  const f = parseSource(
    'theorem t {α : Type} [inst : Foo α] (s : Set α) : ∀ x ∈ s, ∃ y, {z | z = y} = g := by\n  intro a ha\n  obtain ⟨b, hb⟩ := ha\n  have hc : c = c := rfl\n  cases a with\n  | inl p => exact p\n  | succ m ih => exact m\n',
  );
  const b = boundNames(f.sig, 0, f.sig.length);
  for (const n of ['α', 'inst', 's', 'x', 'y', 'z', 'a', 'ha', 'b', 'hb', 'hc', 'p', 'm', 'ih'])
    t.ok(b.has(n), `${n} is bound`);
  for (const n of ['Foo', 'Set', 'g', 'c', 'rfl', 'inl', 'succ']) t.notOk(b.has(n), `${n} is not bound`);
  const s = parseSource('structure P where\n  x : Nat\n  y : Nat := x\n\ndef q : P := { x := 1, y := 2 }\n');
  const deps = syntacticDependencies(s);
  t.same(deps.get(s.decls[0]!)!.external, ['Nat'], 'fields are not references');
  t.same(
    deps.get(s.decls[1]!)!,
    { local: ['P'], external: [] },
    'field names in a structure instance are not references',
  );
});

t.test(
  'standalone content: dependencies in file order inside their namespaces, empty scopes dropped, mutual blocks whole',
  async (t) => {
    const f = parseSource(SAMPLE);
    const ix = standaloneIndex(f, syntacticDependencies(f));
    const uses = f.decls.find((d) => d.fullName === 'uses')!;
    const text = standaloneContent(ix, uses, 'import Mathlib');
    t.equal(
      text,
      [
        'import Mathlib',
        'open Nat',
        'namespace Foo',
        'variable (n : ℕ)',
        'def double (k : ℕ) : ℕ := 2 * k',
        'theorem double_eq (k : ℕ) : double k = k + k := by\n  unfold double\n  omega',
        'end Foo',
        'open Foo in\ntheorem uses (x : ℕ) (h : x = 1) : double x = 2 := by\n  rw [double_eq, h]\n  <;> simp [Nat.add_comm]',
      ].join('\n\n') + '\n',
    );
    t.notMatch(text, /Bar/, 'a namespace holding nothing needed is dropped');
    const ev = f.decls.find((d) => d.fullName === 'ev')!;
    const evText = standaloneContent(ix, ev, '');
    t.match(evText, /^open Nat\n\nmutual\n\ndef isEven[\s\S]*def isOdd[\s\S]*\nend\n\ntheorem ev/);
    t.equal(
      dependencyClosure(
        ix,
        f.decls.find((d) => d.fullName === 'Bar.unused')!,
      ).size,
      1,
    );
  },
);

t.test(
  'a declaration inside an unclosed namespace gets a closing end; instances and notation come along',
  async (t) => {
    const f = parseSource(
      'namespace A\nstructure S where\n  v : Nat\ninstance : Inhabited S := ⟨⟨0⟩⟩\nnotation "𝟙" => S.mk 1\ntheorem t : (default : S).v = 0 := rfl\n',
    );
    const ix = standaloneIndex(f, syntacticDependencies(f));
    const text = standaloneContent(ix, f.decls[2]!, '');
    t.match(
      text,
      /^namespace A\n\nstructure S[\s\S]*instance : Inhabited S[\s\S]*notation "𝟙"[\s\S]*theorem t[\s\S]*\n\nend A\n$/,
    );
  },
);

t.test(
  'a sample of the corpus by hand: term-level `by` blocks, self-reference, types inside binder groups',
  async (t) => {
    // After compfiles Imo1964P1 (imo_1964_p1b'): equations with `by` right-hand sides and a recursive call.
    const { of } = depsOf(
      'theorem p : ∀ (n : ℕ), (2 ^ n + 1) % 7 ≠ 0\n    | 0 | 1 | 2 => by decide\n    | n + 3 => by\n      rw [pow_add, Nat.add_mod, show 2 ^ 3 % 7 = 1 by rfl]\n      simp [p n]\n',
    );
    t.same(
      of('p'),
      { local: [], external: ['ℕ', 'pow_add', 'Nat.add_mod'] },
      'tactics are not references, nor is the recursive call',
    );
    // After combibench imo_2015_p1: the answer set written after a set-builder, types inside `∃ (S : …)`.
    const { of: of2 } = depsOf(
      'def balanced (S : Set ℕ) : Prop := True\nabbrev sol : Set ℕ := sorry\ntheorem q : (∀ n ≥ 3, ∃ (S : Finset (Fin 2)), balanced S ∧ S.card = n) ∧\n    {n | n ≥ 3} =\n    sol := by sorry\n',
    );
    t.same(of2('q'), { local: ['balanced', 'sol'], external: ['Finset', 'Fin'] });
    const { of: of3 } = depsOf(
      'theorem r (h : 1 = 1) : True := by\n  exact (fun x => Nat.le_refl x) 0 |>.elim (fun _ => trivial) trivial\n',
    );
    t.same(of3('r').external, ['True', 'Nat.le_refl', 'trivial'], 'a term after `=>` inside a tactic is a reference');
  },
);

t.test(
  'variables and notations that name local declarations bring them along; include/omit stay in force',
  async (t) => {
    const src =
      'structure V where\n  n : Nat\n\ndef unused : Nat := 0\n\nsection S\nvariable (v : V)\ninclude v\n\ntheorem w : v.n = v.n := rfl\nend S\n';
    const f = parseSource(src);
    const deps = syntacticDependencies(f);
    const ix = standaloneIndex(f, deps, commandDependencies(f));
    t.same(commandDependencies(f).get(f.commands.findIndex((c) => c.kind === 'variable')), ['V']);
    t.equal(
      standaloneContent(ix, f.decls[2]!, ''),
      'structure V where\n  n : Nat\n\nsection S\n\nvariable (v : V)\n\ninclude v\n\ntheorem w : v.n = v.n := rfl\n\nend S\n',
    );
  },
);

t.test(
  'the term after cases/rcases/induction and inside filter_upwards is a reference; names after with are bound',
  async (t) => {
    const f = parseSource(
      'theorem t : True := by\n  rcases exists_foo 3 with ⟨a, ha⟩\n  induction bar_list with\n  | nil => trivial\n  | cons x xs ih => exact ih\n',
    );
    const b = boundNames(f.sig, 0, f.sig.length);
    t.ok(['a', 'ha', 'x', 'xs', 'ih'].every((n) => b.has(n)));
    t.notOk(b.has('exists_foo') || b.has('bar_list'));
  },
);
