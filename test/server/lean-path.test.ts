/**
 * The miss path end to end over HTTP and WebSocket, with the fake REPL test double as the
 * worker: cache hits, deadlines, status, streaming events, cancellation.
 */
import t from 'tap';
import WebSocket from 'ws';
import { liveProcessGroups } from '../../src/backend/process/repl-process.ts';
import { waitFor } from '../backend/fake.ts';
import { makeApp, testConfig, TEST_ENV } from '../helpers.ts';

const check = (content: string, extra: Record<string, unknown> = {}) => ({
  method: 'POST' as const,
  url: '/api/v1/check',
  payload: { content, environment: TEST_ENV, ...extra },
});

t.test('check over HTTP: miss, then a cache hit that touches no pool', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r1 = await app.inject(check('def a := 1\n\ntheorem t : True := trivial\n'));
  t.equal(r1.statusCode, 200);
  t.equal(r1.headers['x-cache'], 'miss');
  const body = r1.json();
  t.equal(
    body.content,
    'import Mathlib\n\ndef a := 1\n\ntheorem t : True := trivial\n',
    'the environment header is substituted',
  );
  for (const k of ['total_ms', 'parse_ms'] as const) {
    const v = body.timings[k];
    t.ok(Number.isFinite(v) && v >= 0 && v < 60_000, `timings.${k} is a duration in ms (${v})`);
  }
  const before = (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  const r2 = await app.inject(check('def a := 1\n\ntheorem t : True := trivial\n', { timeout_seconds: 30 }));
  t.equal(r2.headers['x-cache'], 'hit', 'timeout_seconds does not change the cache key');
  t.same(r2.json().lean_messages, body.lean_messages);
  t.same(r2.json().timings, { total_ms: 0 });
  const after = (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  t.same(after.pools, before.pools, 'the hit did not touch the pool');
  t.equal(after.cache.hits, 1);
});

t.test('messages come back on content positions, bucketed by severity', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r = (await app.inject(check('def a := 1\n\nMSG error boom\n'))).json();
  t.same(
    r.lean_messages.errors,
    ['-:5:0-5:1: error: boom\n'],
    'line 3 of the input is line 5 after the two header lines',
  );
  t.equal(r.okay, false);
});

t.test("a request past its deadline while Lean runs it gets AXLE's LeanTimeout; its session is replaced", async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  // Warm a session first, so the deadline lands on the running command, not on a slow start.
  t.equal((await app.inject(check('def warm := 1\n'))).statusCode, 200);
  const slow = await app.inject(check('HANG\n', { timeout_seconds: 0.3 }));
  // AXLE's shape (docs/errors.md): 200 with {error, error_type}; the old code answered 504 `timeout`.
  t.equal(slow.statusCode, 200);
  t.same(Object.keys(slow.json()).sort(), ['error', 'error_type']);
  t.match(slow.json(), { error: /lean worker timeout.*deadline of 0\.3 s/, error_type: 'LeanTimeout' });
  t.equal(slow.headers['x-error-code'], 'lean_timeout');
  const next = await app.inject(check('def b := 2\n'));
  t.equal(next.statusCode, 200);
  // The fake REPL does not stop the command itself: its process is killed after the grace period.
  let retired = 0;
  for (let i = 0; i < 300 && retired < 1; i++) {
    retired = (await app.inject({ method: 'GET', url: '/v1/status' })).json().pools[TEST_ENV].retired;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(retired, 1);
  // Not cached: the same request, on the warm session `next` left, runs Lean again (its own LeanTimeout).
  const again = await app.inject(check('HANG\n', { timeout_seconds: 0.3 }));
  t.not(again.headers['x-cache'], 'hit');
  t.match(again.json(), { error_type: 'LeanTimeout' }, 'Lean ran it again');
});

t.test('a Lean crash is a tool-level failure, not a cached or invented result', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r = (await app.inject(check('CRASH\n'))).json();
  t.equal(r.okay, false);
  t.match(r.tool_messages.errors[0], /Lean failed while elaborating \(crashed\)/);
  const again = await app.inject(check('CRASH\n'));
  t.equal(again.headers['x-cache'], 'miss', 'failures are not cached');
});

function openStream(port: number, headers: Record<string, string> = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`, { headers });
  const events: Record<string, unknown>[] = [];
  ws.on('message', (d) => events.push(JSON.parse(String(d)) as Record<string, unknown>));
  return { ws, events, opened: new Promise((r) => ws.once('open', r)) };
}

t.test('WebSocket: queued, started, progress, result; several ids in flight; errors per id', async (t) => {
  const app = await makeApp({ config: testConfig({ keys: [{ key: 'stream-key-1' }] }) });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const { ws, events, opened } = openStream(port, { authorization: 'Bearer stream-key-1' });
  await opened;
  ws.send(
    JSON.stringify({ id: 'a', tool: 'check', request: { content: 'def a := 1\ndef b := 2\n', environment: TEST_ENV } }),
  );
  ws.send(JSON.stringify({ id: 'b', tool: 'check', request: { content: 'def c := 3\n', environment: TEST_ENV } }));
  ws.send(JSON.stringify({ id: 'c', tool: 'check', request: { environment: TEST_ENV } }));
  ws.send('not json');
  await waitFor(() => events.filter((e) => e.event === 'result' || e.event === 'error').length >= 4);
  const of = (id: string) => events.filter((e) => e.id === id).map((e) => e.event);
  t.same(of('a'), ['queued', 'started', 'progress', 'progress', 'result']);
  t.same(
    events.filter((e) => e.id === 'a' && e.event === 'progress').map((e) => [e.done, e.total]),
    [
      [1, 2],
      [2, 2],
    ],
  );
  t.same(of('b').at(-1), 'result');
  t.match(
    events.find((e) => e.id === 'c' && e.event === 'error'),
    { error: { code: 'invalid_request' } },
  );
  t.match(
    events.find((e) => e.id === null),
    { error: { code: 'malformed_json' } },
  );
  ws.close();
});

t.test('WebSocket: cancelling an id and closing the socket free their sessions', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const { ws, events, opened } = openStream(port);
  await opened;
  const status = async () => (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  /** Until the fake REPL is inside the hung command (the session is busy). */
  const busy = async () => {
    for (let i = 0; i < 200; i++) {
      if ((await status()).pools[TEST_ENV]?.busy === 1) return true;
      await new Promise((r) => setTimeout(r, 25));
    }
    return false;
  };
  ws.send(JSON.stringify({ id: 'h', tool: 'check', request: { content: 'HANG\n', environment: TEST_ENV } }));
  t.ok(await busy());
  ws.send(JSON.stringify({ id: 'h', cancel: true }));
  await waitFor(() => events.some((e) => e.id === 'h' && e.event === 'error'));
  t.match(
    events.find((e) => e.id === 'h' && e.event === 'error'),
    { error: { code: 'cancelled' } },
  );
  // Killed once the grace after the cancellation has passed (the fake REPL never stops a command itself).
  let killed = 0;
  for (let i = 0; i < 100 && killed < 1; i++) {
    killed = (await status()).pools[TEST_ENV].retired;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(killed, 1, 'the hung session was killed');

  const second = openStream(port);
  await second.opened;
  second.ws.send(
    JSON.stringify({ id: 'h2', tool: 'check', request: { content: 'HANG again\n', environment: TEST_ENV } }),
  );
  t.ok(await busy());
  second.ws.close();
  let retired = 0;
  for (let i = 0; i < 100 && retired < 2; i++) {
    retired = (await status()).pools[TEST_ENV].retired;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(retired, 2, 'closing the socket killed its session too');
  ws.close();
});

t.test('WebSocket: an unknown key is refused before the upgrade', async (t) => {
  const app = await makeApp({ config: testConfig({ keys: [{ key: 'stream-key-1' }] }) });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`, { headers: { authorization: 'Bearer wrong-key-000' } });
  const status = await new Promise<number>((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => resolve(101));
    ws.on('error', () => resolve(-1));
  });
  t.equal(status, 401);
});

t.test('no REPL process survives', async (t) => {
  t.ok(await waitFor(() => liveProcessGroups().length === 0));
});

t.test('a request waiting for an equal one that Lean runs gets LeanTimeout at its own deadline', async (t) => {
  const app = await makeApp({ config: testConfig({ admission: { anonymousConcurrency: 4 } }) });
  t.teardown(() => app.close());
  t.equal((await app.inject(check('def warm := 1\n'))).statusCode, 200);
  // The first runs HANG with a long deadline; the second, equal, waits for it and meets its own short deadline.
  const first = app.inject(check('HANG\n', { timeout_seconds: 3 }));
  const busy = async () => (await app.inject({ method: 'GET', url: '/v1/status' })).json().pools[TEST_ENV].busy;
  while ((await busy()) !== 1) await new Promise((r) => setTimeout(r, 20));
  const second = await app.inject(check('HANG\n', { timeout_seconds: 0.3 }));
  t.match(second.json(), { error_type: 'LeanTimeout' }, 'Lean was running its text: Lean’s timeout');
  t.equal(second.headers['x-error-code'], 'lean_timeout');
  const status = (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  t.equal(status.comment_memo.waited, 1, 'it waited for the first');
  t.match((await first).json(), { error_type: 'LeanTimeout' });
});
