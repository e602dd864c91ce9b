/** theorem2lemma's rules, and normalize's failsafe with an injected Lean runner (a test double of the backend). */
import t from 'tap';
import type { LeanRunner } from '../../src/backend/index.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { normalize } from '../../src/tools/normalize.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { theorem2lemma } from '../../src/tools/theorem2lemma.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const env = environmentConfig.parse({
  name: 'x',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/tmp',
});

/** A runner that reports an error for every command containing `marker`. */
const runner = (marker: string) =>
  scriptedRunner((c) => ({ messages: c.text.includes(marker) ? [msg('error', c.origin, `bad ${marker}`)] : [] }));
const ctx = (lean: LeanRunner) => toolCtx(lean, env);

t.test('theorem2lemma: both directions; other kinds unchanged even when selected', async (t) => {
  const content =
    'theorem a : True := trivial\nlemma b : True := trivial\ndef c := 1\ninstance : Inhabited Nat := ⟨0⟩\n';
  const run = async (extra: Record<string, unknown>) =>
    (
      await theorem2lemma.run(
        parseToolRequest('theorem2lemma', { content, environment: 'x', reparse: false, ...extra }),
        ctx(runner('∅')),
      )
    ).content;
  // Output in AXLE's layout: one blank line between top-level commands.
  const laid = content.replaceAll('\n', '\n\n').slice(0, -1);
  t.equal(
    await run({}),
    'lemma a : True := trivial\n\nlemma b : True := trivial\n\ndef c := 1\n\ninstance : Inhabited Nat := ⟨0⟩\n',
  );
  t.equal(
    await run({ target: 'theorem' }),
    'theorem a : True := trivial\n\ntheorem b : True := trivial\n\ndef c := 1\n\ninstance : Inhabited Nat := ⟨0⟩\n',
  );
  t.equal(await run({ theorems_only: false, indices: [2, 3] }), laid, 'def and instance are left as they are');
  t.equal(await run({ names: ['b'], target: 'theorem' }), laid.replace('lemma b', 'theorem b'));
});

t.test(
  'with a selection, only selected proofs are elaborated; the others are sent as sorry and their messages dropped',
  async (t) => {
    const lean = runner('MARK');
    const content = 'theorem a : True := MARK\ntheorem b : True := trivial\n';
    const r = await theorem2lemma.run(
      parseToolRequest('theorem2lemma', { content, environment: 'x', names: ['b'] }),
      ctx(lean),
    );
    t.same(
      lean.jobs[0]!.commands.map((c) => c.text),
      ['theorem a : True := sorry', 'lemma b : True := trivial'],
    );
    t.same(r.lean_messages.errors, []);
  },
);

t.test('normalize failsafe: output with new errors is replaced by the original', async (t) => {
  const content = 'namespace N\ntheorem x : True := trivial\nend N\n';
  // The double objects to the qualified name that remove_sections writes.
  const guarded = await normalize.run(parseToolRequest('normalize', { content, environment: 'x' }), ctx(runner('N.x')));
  t.equal(guarded.content, content, 'original returned');
  t.match(guarded.tool_messages.warnings.join('\n'), /failsafe: normalization introduced errors \(0 before, 1 after\)/);
  t.same(guarded.normalize_stats, { remove_sections: 2 });
  const unguarded = await normalize.run(
    parseToolRequest('normalize', { content, environment: 'x', failsafe: false }),
    ctx(runner('N.x')),
  );
  t.equal(unguarded.content, 'theorem N.x : True := trivial\n');
  t.equal(unguarded.lean_messages.errors.length, 1);
  const clean = await normalize.run(parseToolRequest('normalize', { content, environment: 'x' }), ctx(runner('∅')));
  t.equal(clean.content, 'theorem N.x : True := trivial\n', 'no new errors: the normalized content');
});
