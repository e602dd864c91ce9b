/**
 * AXLE's reprint conventions on every transforming tool's output: one blank line between
 * top-level commands, replaced proofs as the term `sorry`, the final newline as in the input.
 * The expected texts are the shapes of AXLE's documented example responses
 * (AxiomMath/axiom-lean-engine docs/tools/{theorem2sorry,have2sorry,theorem2lemma,rename}.md).
 */
import t from 'tap';
import { reprint } from '../../src/tools/layout.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { have2sorry } from '../../src/tools/have2sorry.ts';
import { normalize } from '../../src/tools/normalize.ts';
import { makeApp, UNAVAILABLE_ENV } from '../helpers.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

t.test('reprint: one blank line between commands; text inside a command untouched; comments kept', async (t) => {
  t.equal(
    reprint('import Mathlib\ntheorem a : 1 = 1 := rfl\ntheorem b : 2 = 2 := rfl'),
    'import Mathlib\n\ntheorem a : 1 = 1 := rfl\n\ntheorem b : 2 = 2 := rfl',
  );
  t.equal(
    reprint('theorem a : 1 = 1 := rfl\n\n\n\ntheorem b : 2 = 2 := rfl\n'),
    'theorem a : 1 = 1 := rfl\n\ntheorem b : 2 = 2 := rfl\n',
    'runs of blank lines collapse; the final newline stays',
  );
  t.equal(
    reprint('theorem b : 2 = 2 := by\n\n  rfl'),
    'theorem b : 2 = 2 := by\n\n  rfl',
    'a blank line inside a proof is the proof’s own',
  );
  t.equal(reprint('import A\nimport B\ndef x := 1'), 'import A\nimport B\n\ndef x := 1', 'the imports are one block');
  t.equal(
    reprint('def x := 1 -- why\n-- about y\ndef y := 2\n\n-- alone\n\ndef z := 3'),
    'def x := 1 -- why\n\n-- about y\ndef y := 2\n\n-- alone\n\ndef z := 3',
    'comments: on the line, above, standing alone',
  );
  t.equal(
    reprint('/-- doc -/\n@[simp] theorem t : True := trivial\nend'),
    '/-- doc -/\n@[simp] theorem t : True := trivial\n\nend',
  );
  t.equal(reprint('-- only a comment\n'), '-- only a comment\n', 'nothing to lay out');
  t.equal(reprint(''), '');
});

const post = (tool: string, body: Record<string, unknown>) => ({
  method: 'POST' as const,
  url: `/api/v1/${tool}`,
  payload: { environment: UNAVAILABLE_ENV, reparse: false, ignore_imports: false, ...body },
});

t.test("every transforming tool's output in AXLE's layout (reparse false: no Lean)", async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const two = 'import Mathlib\ntheorem left_as_exercise : 1 = 1 := rfl\ntheorem the_tricky_one : 2 = 2 := rfl';
  const t2s = (await app.inject(post('theorem2sorry', { content: two, names: ['left_as_exercise'] }))).json();
  t.equal(
    t2s.content,
    'import Mathlib\n\ntheorem left_as_exercise : 1 = 1 := sorry\n\ntheorem the_tricky_one : 2 = 2 := rfl',
  );
  const byBlock = (
    await app.inject(
      post('theorem2sorry', { content: 'theorem foo : 1 = 1 := by\n  rfl\ntheorem main : 2 = 2 := by rfl' }),
    )
  ).json();
  t.equal(
    byBlock.content,
    'theorem foo : 1 = 1 := sorry\n\ntheorem main : 2 = 2 := sorry',
    'a by block becomes := sorry',
  );
  const t2l = (
    await app.inject(
      post('theorem2lemma', { content: 'import Mathlib\ntheorem foo : 1 = 1 := rfl\ntheorem bar : 2 = 2 := rfl' }),
    )
  ).json();
  t.equal(t2l.content, 'import Mathlib\n\nlemma foo : 1 = 1 := rfl\n\nlemma bar : 2 = 2 := rfl');
  const ren = (
    await app.inject(
      post('rename', {
        content: 'import Mathlib\ntheorem foo : 1 = 1 := rfl\ntheorem baz : 1 = 1 := foo',
        declarations: { foo: 'bar' },
      }),
    )
  ).json();
  t.equal(ren.content, 'import Mathlib\n\ntheorem bar : 1 = 1 := rfl\n\ntheorem baz : 1 = 1 := bar');
});

t.test('the always-elaborated tools too (a scripted runner double stands in for Lean: no messages)', async (t) => {
  const env = environmentConfig.parse({
    name: 'x',
    lean_toolchain: 'leanprover/lean4:v4.28.0',
    imports: 'import Mathlib',
    project_dir: '/tmp',
  });
  const ctx = toolCtx(
    scriptedRunner(() => ({ messages: [] })),
    env,
  );
  const content =
    'import Mathlib\ntheorem foo : 1 = 1 ∧ 2 = 2 := by\n  have h1 : 1 = 1 := by rfl\n  have h2 : 2 = 2 := by rfl\n  exact ⟨h1, h2⟩';
  const h = await have2sorry.run(parseToolRequest('have2sorry', { content, environment: 'x' }), ctx);
  t.equal(
    h.content,
    'import Mathlib\n\ntheorem foo : 1 = 1 ∧ 2 = 2 := by\n  have h1 : 1 = 1 := sorry\n  have h2 : 2 = 2 := sorry\n  exact ⟨h1, h2⟩',
    "have bodies become the term sorry (AXLE's have2sorry example)",
  );
  const n = await normalize.run(
    parseToolRequest('normalize', {
      content: 'import Mathlib\nsection\ntheorem foo : 1 = 1 := rfl\nend\ntheorem bar : 2 = 2 := rfl\n',
      environment: 'x',
    }),
    ctx,
  );
  t.equal(n.content, 'import Mathlib\n\ntheorem foo : 1 = 1 := rfl\n\ntheorem bar : 2 = 2 := rfl\n');
});
