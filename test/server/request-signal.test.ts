/**
 * The signal a tool run gets over HTTP: one AbortController per request is both the client-gone
 * check and the deadline (src/server/routes.ts, src/admission/request-timeout.ts). It aborts when the
 * client goes before its answer (reason `cancelled`), or at the deadline (reason `timeout`, and
 * the response is a 504 even when the tool ignores its signal); it carries the deadline the Lean
 * backend turns into heartbeat budgets; and the request's concurrency slot comes back either way.
 */
import net from 'node:net';
import t from 'tap';
import { ServiceError } from '../../src/errors.ts';
import { deadlineOf } from '../../src/sync/signal-marks.ts';
import { checkResult, makeApp, sleep, TEST_ENV, testConfig } from '../helpers.ts';

interface Seen {
  signal?: AbortSignal;
  deadline?: number | undefined;
  startedAt?: number;
  /** What ended the wait: the signal, or the hold running out. */
  endedBy?: 'abort' | 'hold';
}

/** A check tool that records its signal and waits for it to abort (or `holdMs`, then answers anyway). */
function waitingTool(seen: Seen, holdMs: number) {
  return {
    check: {
      needsLean: () => false,
      run: async (req: { content: string }, ctx: { signal: AbortSignal }) => {
        seen.signal = ctx.signal;
        seen.deadline = deadlineOf(ctx.signal);
        seen.startedAt = Date.now();
        // Until the signal aborts, or `holdMs` (its timer cleared either way: nothing outlives the test).
        await new Promise<void>((resolve) => {
          const done = (by: 'abort' | 'hold') => {
            clearTimeout(timer);
            seen.endedBy ??= by;
            resolve();
          };
          const timer = setTimeout(() => done('hold'), holdMs);
          ctx.signal.addEventListener('abort', () => done('abort'), { once: true });
        });
        return checkResult(req.content);
      },
    },
  };
}

const body = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ content, environment: TEST_ENV, ...extra });

/** POSTs a check of `content` (with `extra` members) through fastify's inject. */
const postCheck = (app: Awaited<ReturnType<typeof makeApp>>, content: string, extra: Record<string, unknown> = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/check',
    headers: { 'content-type': 'application/json' },
    payload: body(content, extra),
  });

/** The error code carried by an abort reason. */
const codeOf = (reason: unknown) => (reason instanceof ServiceError ? reason.code : String(reason));

t.test('a client that goes before its answer aborts the run (cancelled) and frees its slot', async (t) => {
  const seen: Seen = {};
  // Anonymous callers have one slot: the second request is admitted only if the first gave it back.
  const app = await makeApp({ tools: waitingTool(seen, 5_000), config: testConfig() });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as net.AddressInfo).port;
  const s = net.connect(port, '127.0.0.1');
  await new Promise((r) => s.once('connect', r));
  const b = body('gone');
  s.write(
    `POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`,
  );
  for (let i = 0; i < 200 && !seen.signal; i++) await sleep(10);
  t.ok(seen.signal, 'the run started');
  t.notOk(seen.signal!.aborted, 'not aborted while the client waits');
  s.destroy();
  for (let i = 0; i < 200 && !seen.signal!.aborted; i++) await sleep(10);
  t.ok(seen.signal!.aborted, 'aborted once the client went');
  t.equal(codeOf(seen.signal!.reason), 'cancelled');
  const next = await postCheck(app, 'next', { timeout_seconds: 0.2 });
  // Admitted (not a 429 for the one anonymous slot): it runs until its own deadline.
  t.equal(next.statusCode, 504, 'the next request was admitted and ran to its deadline');
});

t.test('the deadline aborts the run (timeout), answers 504 at once, and is on the signal', async (t) => {
  const seen: Seen = {};
  const app = await makeApp({ tools: waitingTool(seen, 5_000) });
  t.teardown(() => app.close());
  const r = await postCheck(app, 'slow', { timeout_seconds: 0.3 });
  t.equal(r.statusCode, 504);
  t.equal(r.json().error.code, 'timeout');
  t.equal(seen.endedBy, 'abort', 'answered at the deadline, not when the tool finished');
  t.ok(seen.signal?.aborted, 'the run was told');
  t.equal(codeOf(seen.signal!.reason), 'timeout');
  t.ok(seen.deadline !== undefined, 'the signal carries its deadline (for Lean-side budgets)');
  const ahead = seen.deadline! - seen.startedAt!;
  t.ok(ahead > 0 && ahead <= 300, `the deadline is the request's 0.3 s (${ahead} ms ahead at the start)`);
});

t.test('a run that ignores its signal and ends late is a 504, never a 200', async (t) => {
  const app = await makeApp({
    tools: {
      check: {
        needsLean: () => false,
        // Holds the thread past the deadline: the timer cannot fire before the work ends.
        run: async (req: { content: string }) => {
          const until = Date.now() + 400;
          while (Date.now() < until);
          return checkResult(req.content);
        },
      },
    },
  });
  t.teardown(() => app.close());
  const r = await postCheck(app, 'busy', { timeout_seconds: 0.1 });
  t.equal(r.statusCode, 504);
});

t.test('an answered request leaves its signal alone, also when its connection closes after', async (t) => {
  const seen: Seen = {};
  const app = await makeApp({ tools: waitingTool(seen, 10) });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as net.AddressInfo).port;
  // A real socket (fastify's inject closes its fake response without finishing it).
  const s = net.connect(port, '127.0.0.1');
  await new Promise((r) => s.once('connect', r));
  let out = '';
  s.on('data', (d) => (out += d));
  const b = body('quick', { timeout_seconds: 2 });
  s.write(
    `POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`,
  );
  for (let i = 0; i < 300 && !/\r\n\r\n\{.*\}$/s.test(out); i++) await sleep(10);
  t.match(out, /^HTTP\/1\.1 200/, 'answered');
  s.destroy();
  await sleep(100);
  t.notOk(seen.signal?.aborted, 'not aborted after its answer, nor when the connection closed after it');
});
