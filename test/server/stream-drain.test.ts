/**
 * Issue 23, item 8: closing the daemon (SIGTERM → app.close, src/main.ts) drains the stream
 * channel: in-flight work is answered, new requests on open sockets are refused with the
 * 503-equivalent `overloaded`, then the socket closes with 1001 "going away". Before, the
 * sockets closed within 3 ms with no result and no error.
 */
import t from 'tap';
import { waitFor } from '../backend/fake.ts';
import { makeApp, TEST_ENV, testConfig } from '../helpers.ts';
import { listenLoopback, openStreamSocket } from '../helpers/loopback.ts';
import type { ToolImpl } from '../../src/tools/types.ts';

/** A structural tool that takes `ms`, or until `held` resolves (its result names it), standing in for real work. */
const slow = (ms: number, held?: Promise<void>): ToolImpl<'theorem2sorry'> => ({
  needsLean: () => false,
  run: async (req, ctx) => {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      void held?.then(() => (clearTimeout(timer), resolve(undefined)));
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason as Error);
      });
    });
    return {
      content: `done ${req.content}`,
      lean_messages: { errors: [], warnings: [], infos: [] },
      tool_messages: { errors: [], warnings: [], infos: [] },
      timings: {},
    };
  },
});

interface Event {
  id: string;
  event: string;
  result?: { content: string };
  error?: { code: string };
}

t.test('close drains in-flight stream work, refuses new requests, then closes with 1001', async (t) => {
  // The in-flight request runs until the test has seen the refusal: a 600 ms run could end first on a loaded
  // machine (its result and the close then came before the second request was read).
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const app = await makeApp({
    tools: { theorem2sorry: slow(60_000, held) },
    config: testConfig({ server: { drainTimeoutMs: 60_000 } }),
  });
  await listenLoopback(app);
  const { ws, events: seen, closed } = await openStreamSocket<Event | { close: number }>(app);
  void closed.then((code) => seen.push({ close: code }));
  const ask = (id: string) =>
    ws.send(JSON.stringify({ id, tool: 'theorem2sorry', request: { content: id, environment: TEST_ENV } }));
  ask('a');
  await waitFor(() => seen.some((e) => 'event' in e && e.event === 'started'));
  const closing = app.close();
  // The drain began: a new request on the open socket is refused, not dropped.
  await new Promise((r) => setTimeout(r, 50));
  ask('b');
  // Refused (error), or wrongly taken (started): either way the in-flight one may end now.
  await waitFor(() => seen.some((e) => 'id' in e && e.id === 'b' && e.event !== 'queued'));
  release();
  const code = await closed;
  await closing;
  t.equal(code, 1001, 'the socket closed with 1001 (going away)');
  const final = (id: string) =>
    seen.find((e): e is Event => 'id' in e && e.id === id && e.event !== 'queued' && e.event !== 'started');
  t.equal(final('a')?.event, 'result', 'the in-flight request was answered');
  t.equal(final('a')?.result?.content, 'done a');
  t.equal(final('b')?.event, 'error', 'the request sent during the drain was refused');
  t.equal(final('b')?.error?.code, 'overloaded', 'with the 503-equivalent code');
  const order = seen.map((e) => ('close' in e ? 'close' : `${e.id}:${e.event}`));
  t.ok(order.indexOf('a:result') < order.indexOf('close'), `result before close: ${order.join(', ')}`);
});

t.test('a drain that times out still closes the sockets (1001) and ends', async (t) => {
  const app = await makeApp({
    tools: { theorem2sorry: slow(60_000) },
    config: testConfig({ server: { drainTimeoutMs: 2_500 } }),
  });
  await listenLoopback(app);
  const { ws, events, closed } = await openStreamSocket<Event>(app);
  ws.send(JSON.stringify({ id: 'x', tool: 'theorem2sorry', request: { content: 'x', environment: TEST_ENV } }));
  await waitFor(() => events.some((e) => e.event === 'started'));
  await app.close();
  t.equal(await closed, 1001);
  // Closed at the drain timeout, not when the job would end: the job never answered.
  t.notOk(
    events.some((e) => e.event === 'result'),
    'no result: the socket closed before the job finished',
  );
});
