/**
 * Against a real Lean toolchain and REPL. Runs when an environment of config/ is available
 * (elan/lake found, REPL built by `npm run lean:setup`); otherwise each test is skipped and
 * the reason is printed.
 */
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../src/app.ts';
import { LeanBackend } from '../../src/backend/index.ts';
import { loadConfig } from '../../src/config.ts';
import { probeEnvironment } from '../../src/envs/probe.ts';

const config = loadConfig();
const probes = config.environments.map((e) => ({ env: e, a: probeEnvironment(e) }));
// Prefer a core-only environment: it starts in seconds.
const ready = probes.filter((p) => p.a.available).sort((x, y) => Number(x.env.imports !== '') - Number(y.env.imports !== ''))[0];
const skip = ready ? false : `no Lean toolchain here: ${probes.map((p) => `${p.env.name}: ${p.a.available ? 'available' : p.a.reason}`).join('; ')}`;
if (skip) t.comment(`SKIP integration tests: ${skip}`);

const env = ready?.env;

/** A daemon on the chosen environment; nothing warmed ahead, each test starts what it uses. */
async function leanApp(t: Test): Promise<FastifyInstance> {
  const app = await leanApp(t);
  return app;
}
/** POST /api/v1/<tool> on the chosen environment; the JSON response. */
const callTool = async (app: FastifyInstance, tool: string, body: Record<string, unknown>) =>
  (await app.inject({ method: 'POST', url: `/api/v1/${tool}`, payload: { environment: env?.name, timeout_seconds: 600, ...body } })).json();

t.test('check on a valid file, a file with an error, a file with sorry', { skip }, async (t) => {
  const app = await leanApp(t);
  const ok = await callTool(app, 'check', { content: 'theorem two : 1 + 1 = 2 := rfl\n' });
  t.equal(ok.okay, true);
  t.same(ok.lean_messages.errors, []);
  t.same(ok.failed_declarations, []);

  const bad = await callTool(app, 'check', { content: 'theorem three : 1 + 1 = 3 := rfl\n' });
  t.equal(bad.okay, false);
  t.ok(bad.lean_messages.errors.length > 0);
  t.match(bad.lean_messages.errors[0], /^<stdin>:\d+:\d+: error: /);
  t.same(bad.failed_declarations, ['three']);

  const sorry = await callTool(app, 'check', { content: 'theorem s : True := by sorry\n' });
  t.equal(sorry.okay, true, 'sorry compiles');
  t.match(sorry.lean_messages.warnings.join('\n'), /declaration uses .sorry./);
  t.same(sorry.failed_declarations, ['s']);
  t.match(sorry.tool_messages.warnings.join('\n'), /Declaration 's' uses 'sorry'/);
});

t.test('prefix reuse: the second of two requests sharing a preamble sends fewer commands', { skip }, async (t) => {
  const b = new LeanBackend({ limits: { ...config.lean, minWarm: 0, maxSessions: 1 }, log: pino({ level: 'silent' }) });
  t.teardown(() => b.destroy());
  const o = { line: 1, column: 0 };
  const job = (last: string) => ({ header: env!.imports, commands: ['def a : Nat := 1', 'def b : Nat := a + 1', last].map((text) => ({ text, origin: o })) });
  const r1 = await b.elaborate(env!, job('theorem x : b = 2 := rfl'), { signal: AbortSignal.timeout(600_000) });
  const r2 = await b.elaborate(env!, job('theorem y : b = 2 := by decide'), { signal: AbortSignal.timeout(600_000) });
  t.same([r1.sent, r2.sent, r2.reused], [3, 1, 2]);
  t.same(r2.commands.flatMap((c) => c.messages.filter((m) => m.severity === 'error')), []);
});

t.test('structural tools with reparse: Lean’s messages are those of the output', { skip }, async (t) => {
  const app = await leanApp(t);
  const t2s = await callTool(app, 'theorem2sorry', { content: 'theorem two : 1 + 1 = 2 := rfl\n' });
  t.match(t2s.content, /theorem two : 1 \+ 1 = 2 := sorry/);
  t.match(t2s.lean_messages.warnings.join('\n'), /declaration uses .sorry./, 'the output, not the input, was elaborated');
  const ren = await callTool(app, 'rename', { content: 'def a : Nat := 1\ntheorem t : a = 1 := rfl\n', declarations: { a: 'b' } });
  t.same(ren.lean_messages.errors, [], 'renamed references elaborate');
  const norm = await callTool(app, 'normalize', { content: 'namespace N\ndef x : Nat := 1\ntheorem y : x = 1 := rfl\nend N\n' });
  t.match(norm.content, /theorem N\.y : N\.x = 1 := rfl/);
  t.same(norm.lean_messages.errors, []);
});

t.test('verify_proof against a sorried statement', { skip }, async (t) => {
  const app = await leanApp(t);
  const verify = (content: string, extra: Record<string, unknown> = {}) => callTool(app, 'verify_proof', {
    formal_statement: 'def answer : Nat := sorry\n\ntheorem main (n : Nat) : n + answer = answer + n := by\n  sorry\n', content, ...extra,
  });
  const ok = await verify('def answer : Nat := 3\n\ntheorem main (n : Nat) : n + answer = answer + n := by\n  omega\n');
  t.equal(ok.okay, true, JSON.stringify(ok.tool_messages));
  const changed = await verify('def answer : Nat := 3\n\ntheorem main (n : Nat) : n + answer = n + answer := rfl\n');
  t.equal(changed.okay, false);
  t.match(changed.tool_messages.errors.join('\n'), /Theorem 'main' does not match expected signature/);
  const sorried = await verify('def answer : Nat := 3\n\ntheorem main (n : Nat) : n + answer = answer + n := by\n  sorry\n');
  t.same(sorried.failed_declarations, ['main']);
  t.match(sorried.tool_messages.errors.join('\n'), /Declaration 'main' is incomplete/);
});

t.test('sorry2lemma lifts a sorry with the goal Lean reports', { skip }, async (t) => {
  const app = await leanApp(t);
  const r = await callTool(app, 'sorry2lemma', { content: 'theorem t (x : Nat) (h : 0 < x) : x ≠ 0 := by\n  sorry\n', reconstruct_callsite: true });
  t.same(r.lemma_names, ['t.sorried']);
  t.match(r.content, /theorem t\.sorried \(x : Nat\) \(h : 0 < x\) :/);
  t.match(r.content, /exact t\.sorried x h/);
  t.same(r.lean_messages.errors, [], 'the lemma and the rebuilt call site elaborate');
});

t.test('have2lemma lifts a have with the context Lean reports', { skip }, async (t) => {
  const app = await leanApp(t);
  const r = await callTool(app, 'have2lemma', { content: 'theorem t (x : Nat) (h : 0 < x) : 1 ≤ x := by\n  have h1 : 1 ≤ x := by omega\n  exact h1\n', include_have_body: true, reconstruct_callsite: true });
  t.same(r.lemma_names, ['t.h1']);
  t.match(r.content, /have h1 : 1 ≤ x := t\.h1 x h/);
  t.same(r.lean_messages.errors, []);
});

t.test('merge two files with an overlapping definition', { skip }, async (t) => {
  const app = await leanApp(t);
  const r = await callTool(app, 'merge', { documents: ['def a : Nat := 1\ntheorem t : a = 1 := sorry\n', 'def a : Nat := 1\ntheorem t : a = 1 := rfl\n'] });
  t.match(r.content, /theorem t : a = 1 := rfl/);
  t.same(r.lean_messages.errors, []);
});

t.test('repair_proofs inserts a sorry and lets a terminal tactic close it', { skip }, async (t) => {
  const app = await leanApp(t);
  const r = await callTool(app, 'repair_proofs', { content: 'theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor\n  exact hp\n', terminal_tactics: ['assumption'] });
  t.match(r.content, /exact hp\n  assumption/);
  t.equal(r.okay, true, JSON.stringify(r.tool_messages));
});

t.test('simplify_theorems drops what the proof does not need', { skip }, async (t) => {
  const app = await leanApp(t);
  const r = await callTool(app, 'simplify_theorems', { content: 'theorem s (p : Prop) (hp : p) : p := by\n  have unused : 1 = 1 := rfl\n  skip\n  exact hp\n' });
  t.equal(r.content.trim(), 'theorem s (p : Prop) (hp : p) : p := by\n  exact hp');
  t.same(r.lean_messages.errors, []);
});

t.test('disprove proves the negation of a false statement', { skip }, async (t) => {
  const app = await leanApp(t);
  const r = await callTool(app, 'disprove', { content: 'theorem wrong : 1 + 1 = 3 := sorry\ntheorem right : 1 + 1 = 2 := rfl\n', terminal_tactics: ['decide'] });
  t.same(r.disproved_theorems, ['wrong']);
  t.match(r.results.right, /^Disprove: proof of the negation failed/);
});
