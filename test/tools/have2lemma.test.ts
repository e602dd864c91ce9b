/** have2lemma with a scripted runner double that reports goals at the probe's sorries (REPL-shaped). */
import t from 'tap';
import type { LeanRunner } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { have2lemma } from '../../src/tools/have2lemma.ts';
import { scriptedRunner, toolCtx, type Respond } from './runner.ts';

/** In the first job, every `sorry` of a command gets the next goal of `goals` (positions relative to the command). */
function runner(goals: string[]) {
  let g = 0;
  return scriptedRunner((c, job) => {
    if (job > 0) return {};
    const sorries: NonNullable<ReturnType<Respond>['sorries']> = [];
    c.text.split('\n').forEach((l, i) => {
      for (let col = l.indexOf('sorry'); col >= 0; col = l.indexOf('sorry', col + 1))
        sorries.push({ pos: { line: i + 1, column: col }, goal: goals[g++] ?? '⊢ ?', proofState: 0, origin: c.origin });
    });
    return { sorries };
  });
}
const ctx = (lean: LeanRunner) => toolCtx(lean);
const run = (content: string, extra: Record<string, unknown>, r: LeanRunner) =>
  have2lemma.run(parseToolRequest('have2lemma', { content, environment: 'x', reparse: false, ...extra }), ctx(r));

const src =
  'theorem t (x : Nat) (h : 0 < x) : 1 ≤ x := by\n  have h1 : 1 ≤ x := by\n    omega\n  have h2 : x ≠ 0 := Nat.pos_iff_ne_zero.mp h\n  exact h1\n';
const goals = ['x : Nat\nh : 0 < x\n⊢ 1 ≤ x', 'x : Nat\nh : 0 < x\nh1 : 1 ≤ x\n⊢ x ≠ 0'];

t.test('each have becomes a lemma with the context Lean reports, before the theorem', async (t) => {
  const lean = runner(goals);
  const r = await run(src, {}, lean);
  t.same(r.lemma_names, ['t.h1', 't.h2']);
  t.match(
    lean.jobs[0]!.commands.find((c) => c.text.startsWith('theorem'))!.text,
    /have h1 : 1 ≤ x := sorry\n  have h2 : x ≠ 0 := sorry/,
    'the probe replaced the have proofs',
  );
  // Defect 13: goals are printed so that they elaborate again (no `⋯` for proofs, typed numerals).
  t.same(
    lean.jobs[0]!.commands.slice(0, 2).map((c) => c.text),
    ['set_option pp.proofs true', 'set_option pp.numericTypes true'],
  );
  t.equal(
    r.content,
    `theorem t.h1 (x : Nat) (h : 0 < x) :\n    1 ≤ x := by\n  sorry\n\ntheorem t.h2 (x : Nat) (h : 0 < x) (h1 : 1 ≤ x) :\n    x ≠ 0 := by\n  sorry\n\n${src}`,
  );
});

t.test('include_have_body copies the proof; reconstruct_callsite applies the lemma', async (t) => {
  const r = await run(src, { include_have_body: true, reconstruct_callsite: true }, runner(goals));
  t.match(
    r.content,
    /theorem t\.h1 \(x : Nat\) \(h : 0 < x\) :\n    1 ≤ x := by\n  omega\n/,
    'the copied proof is re-indented under the lemma',
  );
  t.match(
    r.content,
    /theorem t\.h2 \(x : Nat\) \(h : 0 < x\) \(h1 : 1 ≤ x\) :\n    x ≠ 0 := Nat\.pos_iff_ne_zero\.mp h\n/,
  );
  t.match(r.content, /have h1 : 1 ≤ x := t\.h1 x h\n  have h2 : x ≠ 0 := t\.h2 x h h1\n/);
});

t.test('relevance heuristic, and inaccessible hypotheses keep a sorry at the call site', async (t) => {
  const small = await run(src, { include_whole_context: false }, runner(goals));
  t.match(
    small.content,
    /theorem t\.h2 \(x : Nat\) \(h : 0 < x\) \(h1 : 1 ≤ x\) :/,
    'h and h1 are about x, which the target uses',
  );
  const anon = await run(src, { reconstruct_callsite: true }, runner(['x✝ : Nat\n⊢ 1 ≤ x✝', 'x : Nat\n⊢ x ≠ 0']));
  t.match(anon.content, /have h1 : 1 ≤ x := sorry \/- see t\.h1 -\//);
  t.match(anon.tool_messages.warnings[0], /no usable name/);
});

t.test('two examples with haves: each have gets the goal Lean reports in its own declaration', async (t) => {
  const two =
    'example (x : Nat) (h : 0 < x) : 1 ≤ x := by\n  have h1 : 1 ≤ x := by\n    omega\n  exact h1\n\nexample (y : Nat) : y = y := by\n  have h2 : y = y := rfl\n  exact h2\n';
  const r = await run(two, { theorems_only: false }, runner(['x : Nat\nh : 0 < x\n⊢ 1 ≤ x', 'y : Nat\n⊢ y = y']));
  t.same(r.lemma_names, ['_example_1_0.h1', '_example_6_0.h2'], 'examples named by where they start in the request');
  const lemmas = r.content.split('\n\n').filter((b) => /^(theorem|lemma) /.test(b));
  t.equal(lemmas.length, 2, r.content);
  t.match(lemmas[0], /1 ≤ x/, "the first example's have states its own goal");
  t.match(lemmas[1], /y = y/, "the second example's have states its own goal, not the first's");
});
