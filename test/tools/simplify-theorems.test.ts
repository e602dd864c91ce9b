/** simplify_theorems against a scripted double: a proof needs its `exact`; `(y : Nat)` is reported unused. */
import t from 'tap';
import type { LeanMessage } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { simplify_theorems } from '../../src/tools/simplify-theorems.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

function runner() {
  return scriptedRunner((c) => {
    const m: LeanMessage[] = [];
    if (c.text.startsWith('theorem') && !c.text.includes('exact'))
      m.push(msg('error', c.origin, 'unsolved goals\n⊢ P'));
    const y = c.text.indexOf('(y : Nat)');
    if (y >= 0)
      m.push(
        msg(
          'warning',
          { line: c.origin.line, column: c.origin.column + y + 1 },
          'unused variable `y`\n\nNote: This linter can be disabled with `set_option linter.unusedVariables false`',
        ),
      );
    return { messages: m };
  });
}
const run = (content: string, extra: Record<string, unknown> = {}) =>
  simplify_theorems.run(
    parseToolRequest('simplify_theorems', { content, environment: 'x', ...extra }),
    toolCtx(runner()),
  );

const src =
  'theorem t (x : Nat) (y : Nat) (h : P) : P := by\n  have hx : x = x := rfl\n  have used : P := h\n  try simp\n  rfl <;> rfl\n  exact used\n';

t.test('unused tactics and haves go, needed ones stay; the unused binder becomes _', async (t) => {
  const r = await run(src);
  t.equal(r.content, 'theorem t (x : Nat) (_ : Nat) (h : P) : P := by\n  have used : P := h\n  exact used\n');
  t.same(r.simplification_stats, { rename_unused_vars: 1, remove_unused_haves: 1, remove_unused_tactics: 2 });
  t.match(r.tool_messages.infos[0], /simplification finished after \d+ iterations?/);
  t.same(r.lean_messages.errors, []);
});

t.test('each simplification can be chosen alone', async (t) => {
  const haves = await run(src, { simplifications: ['remove_unused_haves'] });
  t.equal(haves.content, src.replace('  have hx : x = x := rfl\n', ''));
  const vars = await run(src, { simplifications: ['rename_unused_vars'] });
  t.equal(vars.content, src.replace('(y : Nat)', '(_ : Nat)'));
});

t.test('the useless branch of `t₁ <;> t₂` is dropped when t₁ is needed', async (t) => {
  const r = await run('theorem s (h : P) : P := by\n  exact h <;> rfl\n', {
    simplifications: ['remove_unused_tactics'],
  });
  t.equal(r.content, 'theorem s (h : P) : P := by\n  exact h\n');
  t.same(r.simplification_stats, { remove_unused_tactics: 1 });
});

t.test(
  'a deadline stops the trials: the next elaboration is not sent and the request fails with its reason',
  async (t) => {
    // Many declarations, each with a removable tactic: one trial per declaration.
    const content = Array.from({ length: 50 }, (_, i) => `theorem t${i} (h : P) : P := by\n  rfl\n  exact h\n`).join(
      '\n',
    );
    const lean = runner();
    const abort = new AbortController();
    const timeout = new Error('deadline');
    const counting: typeof lean = {
      jobs: lean.jobs,
      elaborate: async (env, job, opts) => {
        if (lean.jobs.length === 5) abort.abort(timeout);
        return lean.elaborate(env, job, opts);
      },
    };
    const req = parseToolRequest('simplify_theorems', { content, environment: 'x' });
    await t.rejects(simplify_theorems.run(req, { ...toolCtx(counting), signal: abort.signal }), timeout);
    t.equal(lean.jobs.length, 5, 'no elaboration after the deadline');
  },
);
