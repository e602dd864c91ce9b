/**
 * Issue 23, item 3: a Lean-backed tool above `workers.inlineMaxChars` runs on a worker thread,
 * its Lean calls going back to the main thread's backend over a port (src/workers/lean-port.ts).
 * Through the fake REPL test double (no Lean here): the answer is the one the main thread
 * gives, Lean failures stay uncached, the main thread's own errors keep their code, a deadline
 * answers 504 and stops the thread, and stream clients get progress then the result.
 */
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { fakeLaunch, waitFor } from '../backend/fake.ts';
import { makeApp, testConfig, TEST_ENV } from '../helpers.ts';

const check = (content: string, extra: Record<string, unknown> = {}) => ({
  method: 'POST' as const,
  url: '/api/v1/check',
  payload: { content, environment: TEST_ENV, ...extra },
});

/** A daemon that runs every Lean-backed request on a worker (inline: none) or on the main thread (inline: all). */
async function daemon(t: Test, inline: 'none' | 'all', launch = () => fakeLaunch()): Promise<FastifyInstance> {
  const app = await makeApp({
    config: testConfig({ workers: { threads: 1, inlineMaxChars: inline === 'none' ? 0 : 1e9 } }),
    launch,
  });
  t.teardown(() => app.close());
  // Inline: all never uses the thread (nor starts it: the next test); each costs ~0.5 s of CPU to start.
  if (inline === 'none') t.equal(await app.warmWorkers(), true, 'the worker thread starts');
  return app;
}

/**
 * The file's one worker-only daemon over the working fake REPL, built at its first use and closed after the last
 * test: each daemon costs ~1.3 s of CPU, mostly its two worker threads loading the sources. The tests that share
 * it need no fresh one: they compare the worker counters before and after, and send content no other test sends
 * (a cached answer would skip the worker).
 */
let offDaemon: Promise<FastifyInstance> | undefined;
async function sharedOff(tt: Test): Promise<FastifyInstance> {
  offDaemon ??= makeApp({ config: testConfig({ workers: { threads: 1, inlineMaxChars: 0 } }) }).then((app) => {
    t.teardown(() => app.close());
    return app;
  });
  const app = await offDaemon;
  tt.equal(await app.warmWorkers(), true, 'the worker thread serves');
  return app;
}

const workers = async (app: FastifyInstance) =>
  (await app.inject({ method: 'GET', url: '/v1/status' })).json().workers as { completed: number; terminated: number };

t.test('check on a worker answers what the main thread answers (messages on content positions)', async (t) => {
  const content = `def a := 1\n\nMSG error boom\n${'theorem t : True := by\n  trivial\n'.repeat(3)}`;
  const off = await sharedOff(t);
  const before = await workers(off);
  const r1 = await off.inject(check(content));
  t.equal(r1.statusCode, 200);
  t.equal((await workers(off)).completed, before.completed + 1, 'the request ran as a worker task');
  const main = await daemon(t, 'all');
  const r2 = await main.inject(check(content));
  const { timings: _a, info: _c, ...offBody } = r1.json();
  const { timings: _b, info: _d, ...mainBody } = r2.json();
  t.same(offBody, mainBody, 'the same answer, timings aside');
  t.same(offBody.lean_messages.errors, ['-:5:0-5:1: error: boom\n']);
});

t.test(
  'a small Lean-backed request runs inline and starts no worker thread; a structural one starts them',
  async (t) => {
    const app = await makeApp();
    t.teardown(() => app.close());
    const threads = async () =>
      (await app.inject({ method: 'GET', url: '/v1/status' })).json().workers.threads as number;
    t.equal((await app.inject(check('def small := 1\n'))).statusCode, 200);
    t.equal(await threads(), 0, 'the check ran here and left the pool unstarted');
    const sorried = await app.inject({
      method: 'POST',
      url: '/api/v1/theorem2sorry',
      payload: { content: 'theorem t : True := trivial\n', environment: TEST_ENV, reparse: false },
    });
    t.equal(sorried.statusCode, 200);
    t.ok((await threads()) > 0, 'a structural request starts the pool');
  },
);

t.test('a 438 KB check (the size that froze every caller for 17.5 s) runs on a worker', async (t) => {
  // The setting's default (32 KiB): a large request goes to the worker, a small one stays inline.
  const off = await makeApp({ config: testConfig({ workers: { threads: 1 } }) });
  t.teardown(() => off.close());
  t.equal(await off.warmWorkers(), true);
  const content = `theorem t : True := by\n${'  trivial\n'.repeat(44_800)}`;
  t.ok(content.length > 438_000);
  const before = await workers(off);
  const r = await off.inject(check(content, { timeout_seconds: 300 }));
  t.equal(r.statusCode, 200);
  t.equal(r.json().okay, true);
  t.equal((await workers(off)).completed, before.completed + 1, 'parsed on the worker, not on the event loop');
  const small = await off.inject(check('theorem s : True := trivial\n'));
  t.equal(small.statusCode, 200);
  t.equal((await workers(off)).completed, before.completed + 1, 'a small request stays inline (no thread hop)');
});

t.test('a Lean crash on a worker-run request is a tool-level failure, not cached', async (t) => {
  const app = await sharedOff(t);
  const r = (await app.inject(check('CRASH\n'))).json();
  t.equal(r.okay, false);
  t.match(r.tool_messages.errors[0], /Lean failed while elaborating \(crashed\)/);
  const again = await app.inject(check('CRASH\n'));
  t.equal(again.headers['x-cache'], 'miss', 'the failure reached the pipeline: not cached');
});

t.test("the backend's own errors come back as the main thread raised them", async (t) => {
  const failing = () => fakeLaunch({ FAKE_REPL_STARTUP_FAIL: '1' });
  const off = await daemon(t, 'none', failing);
  const main = await daemon(t, 'all', failing);
  const a = await off.inject(check('def a := 1\n'));
  const b = await main.inject(check('def a := 1\n'));
  t.equal(a.statusCode, b.statusCode);
  t.equal(a.json().error.code, 'environment_unavailable');
  t.same(a.json(), b.json());
  const envs = (await off.inject({ method: 'GET', url: '/v1/environments' })).json();
  t.match(
    JSON.stringify(envs),
    /Lean failed to start/,
    'the environment is reported unavailable (LeanStartError kept)',
  );
});

t.test(
  "past its deadline while Lean runs, a worker-run request answers AXLE's LeanTimeout; its thread is stopped",
  async (t) => {
    const app = await sharedOff(t);
    t.equal((await app.inject(check('def warm := 1\n'))).statusCode, 200);
    const before = await workers(app);
    const slow = await app.inject(check('HANG\n', { timeout_seconds: 0.3 }));
    // The Lean call came back to this thread's backend, which marks the request's signal while Lean runs it.
    t.equal(slow.statusCode, 200);
    t.match(slow.json(), { error: /lean worker timeout/, error_type: 'LeanTimeout' });
    t.equal((await workers(app)).terminated, before.terminated + 1, 'the task was stopped');
    t.equal((await app.inject(check('def b := 2\n'))).statusCode, 200, 'the next request is served');
  },
);

t.test('WebSocket: a worker-run request streams its last progress, then its result', async (t) => {
  const app = await sharedOff(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const ws = new WebSocket(`ws://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/stream`);
  const events: Record<string, unknown>[] = [];
  ws.on('message', (d) => events.push(JSON.parse(String(d)) as Record<string, unknown>));
  await new Promise((r) => ws.once('open', r));
  t.teardown(() => ws.close());
  const request = { content: 'def a := 1\ndef b := 2\ndef c := 3\n', environment: TEST_ENV };
  ws.send(JSON.stringify({ id: 'a', tool: 'check', request }));
  await waitFor(() => events.some((e) => e.event === 'result' || e.event === 'error'));
  const kinds = events.map((e) => e.event);
  t.equal(kinds.at(-1), 'result');
  const progress = events.filter((e) => e.event === 'progress');
  t.match(progress.at(-1), { done: 3, total: 3 }, 'the final progress is never dropped');
  t.ok(kinds.indexOf('progress') > kinds.indexOf('started'));
});
