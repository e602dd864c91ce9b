import t from 'tap';
import type { ToolTable } from '../../src/tools/types.ts';
import { checkResult, contentResult, makeApp, sleep, testConfig, validRequest } from '../helpers.ts';

/**
 * A stand-in for the check tool that sleeps `content` ms, or with content `hold` runs until `held` resolves (a test
 * that needs requests still running when it asserts holds them, rather than guessing how long they take); it
 * honours its abort signal.
 */
function sleepyTools(log: { started: number; aborted: number }, held?: Promise<void>): ToolTable {
  return {
    check: {
      needsLean: () => false,
      run: async (req, ctx) => {
        log.started++;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, req.content === 'hold' ? 2 ** 31 - 1 : Number(req.content));
          if (req.content === 'hold') void held?.then(() => (clearTimeout(timer), resolve()));
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            log.aborted++;
            reject(ctx.signal.reason);
          });
        });
        return checkResult(req.content);
      },
    },
  };
}

/** A promise the test resolves: what `hold` requests wait for. */
function held(): { held: Promise<void>; release: () => void } {
  let release = () => {};
  const p = new Promise<void>((r) => (release = r));
  return { held: p, release };
}

/** Polls `cond` until it holds (no bound of its own: one that never holds fails at tap's timeout). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(5);
}

const check = (content: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/api/v1/check',
  headers: { 'content-type': 'application/json', ...headers },
  payload: JSON.stringify({ ...validRequest('check'), content, ...extra }),
});

t.test('anonymous callers share one active request; the next waits, then a full queue gets 429', async (t) => {
  const log = { started: 0, aborted: 0 };
  const gate = held();
  const app = await makeApp({
    tools: sleepyTools(log, gate.held),
    config: testConfig({ admission: { anonymousQueueLimit: 1, retryAfterSeconds: 3 } }),
  });
  t.teardown(() => app.close());
  // The first holds the slot until released (a 300 ms run ended before the checks below on a loaded machine).
  const first = app.inject(check('hold'));
  await until(() => log.started === 1);
  const second = app.inject(check('10'));
  const anonymous = async () =>
    (await app.inject({ method: 'GET', url: '/v1/status' })).json().admission.callers.anonymous;
  // Once the second has arrived: queued, or (wrongly) started.
  let seen = await anonymous();
  while (seen.queued + seen.active < 2 && log.started < 2) {
    await sleep(5);
    seen = await anonymous();
  }
  t.same(seen, { active: 1, queued: 1 }, 'the second waits in the queue');
  const third = await app.inject(check('10'));
  t.equal(third.statusCode, 429);
  t.equal(third.headers['retry-after'], '3');
  t.equal(third.json().error.code, 'queue_full');
  gate.release();
  const [r1, r2] = await Promise.all([first, second]);
  t.equal(r1.statusCode, 200);
  t.equal(r2.statusCode, 200);
  t.ok(Number(r2.headers['x-deadline-seconds']) > 0);
  t.equal(log.started, 2);
});

t.test('keyed callers get their configured concurrency', async (t) => {
  const log = { started: 0, aborted: 0 };
  const gate = held();
  const app = await makeApp({
    tools: sleepyTools(log, gate.held),
    config: testConfig({ keys: [{ key: 'user-key-123', concurrency: 3 }], admission: { keyQueueLimit: 0 } }),
  });
  t.teardown(() => app.close());
  const auth = { authorization: 'Bearer user-key-123' };
  // Three held until released: 200 ms runs could end before the fourth arrived on a loaded machine (it then ran).
  const running = [1, 2, 3].map(() => app.inject(check('hold', {}, auth)));
  await until(() => log.started === 3);
  const over = await app.inject(check('10', {}, auth));
  t.equal(over.statusCode, 429, 'a fourth concurrent request exceeds concurrency 3 with no queue');
  const anon = await app.inject(check('10'));
  t.equal(anon.statusCode, 200, 'anonymous callers have their own slot');
  gate.release();
  for (const r of await Promise.all(running)) t.equal(r.statusCode, 200);
});

t.test('deadline: 504 with code timeout; admin and non-admin caps', async (t) => {
  const log = { started: 0, aborted: 0 };
  const app = await makeApp({
    tools: sleepyTools(log),
    config: testConfig({
      keys: [{ key: 'user-key-123' }, { key: 'admin-key-123', admin: true }],
      admission: { maxTimeoutSeconds: 0.2 },
    }),
  });
  t.teardown(() => app.close());
  const slow = await app.inject(check('2000', { timeout_seconds: 0.1 }));
  t.equal(slow.statusCode, 504);
  t.equal(slow.json().error.code, 'timeout');
  t.equal(log.aborted, 1, 'the tool was told to stop');

  const capped = await app.inject(check('500', { timeout_seconds: 60 }, { authorization: 'Bearer user-key-123' }));
  t.equal(capped.statusCode, 504, 'a non-admin deadline is capped (here at 0.2 s)');
  t.match(capped.json().error.message, '0.2 s');
  const admin = await app.inject(check('500', { timeout_seconds: 60 }, { authorization: 'Bearer admin-key-123' }));
  t.equal(admin.statusCode, 200, 'an admin deadline is not capped');
  t.equal(admin.headers['x-deadline-seconds'], '60');
});

t.test('queue time does not count against the deadline', async (t) => {
  const log = { started: 0, aborted: 0 };
  const app = await makeApp({ tools: sleepyTools(log) });
  t.teardown(() => app.close());
  const first = app.inject(check('400', { timeout_seconds: 1 }));
  await sleep(20);
  const second = await app.inject(check('100', { timeout_seconds: 0.3 }));
  t.equal(second.statusCode, 200, 'waited ~400 ms in the queue, then ran 100 ms within its 300 ms deadline');
  t.equal((await first).statusCode, 200);
});

t.test('environment unavailable → 409 only when Lean is needed', async (t) => {
  const app = await makeApp({
    tools: {
      theorem2sorry: {
        needsLean: (req) => req.reparse,
        run: async (req) => contentResult(req.content),
      },
    },
  });
  t.teardown(() => app.close());
  const body = (reparse: boolean) => ({ ...validRequest('theorem2sorry', 'lean-missing'), reparse });
  const r1 = await app.inject({ method: 'POST', url: '/api/v1/theorem2sorry', payload: body(true) });
  t.equal(r1.statusCode, 409);
  t.equal(r1.json().error.code, 'environment_unavailable');
  t.match(r1.json().error.message, /toolchain/);
  t.match(r1.json().error.message, /"reparse": false/, 'the way to work without Lean is named');
  const r2 = await app.inject({ method: 'POST', url: '/api/v1/theorem2sorry', payload: body(false) });
  t.equal(r2.statusCode, 200, 'reparse false needs no Lean');
});
