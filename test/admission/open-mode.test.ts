/**
 * Issue 29 items 1 and 2: open mode (no keys configured) serves any bearer as a key of its
 * own, bounded in how many distinct bearers it tracks; keys configured keep the spec's 401
 * except on the public listings; one anonymous client at its default fan-out gets no 429.
 */
import t from 'tap';
import { KeyRing, OPEN_OVERFLOW_ID } from '../../src/admission/keys.ts';
import { configSchema } from '../../src/config.ts';
import type { ToolTable } from '../../src/tools/types.ts';
import { checkResult, makeApp, testConfig, validRequest } from '../helpers.ts';

/** A check stand-in that waits until released, so a test sees who is active and who queues. */
function gatedTools(): { tools: ToolTable; release: () => void; started: () => number } {
  let started = 0;
  let open: () => void = () => {};
  const gate = new Promise<void>((r) => (open = r));
  const tools: ToolTable = {
    check: {
      needsLean: () => false,
      run: async (req) => {
        started++;
        await gate;
        return checkResult(req.content);
      },
    },
  };
  return { tools, release: () => open(), started: () => started };
}

const check = (i: number, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/api/v1/check',
  headers: { 'content-type': 'application/json', ...headers },
  // A distinct content each: no request is answered from the cache.
  payload: JSON.stringify({ ...validRequest('check'), content: `-- ${i}` }),
});

/** Waits for `cond` (`what` names it for a reader; one that never holds fails at tap's timeout, not at a bound of ours). */
async function until(cond: () => boolean, _what: string): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}

t.test('open mode: a bearer is a key of its own; no key keeps one active anonymous request', async (t) => {
  const g = gatedTools();
  const app = await makeApp({ tools: g.tools });
  t.teardown(() => app.close());
  const a = { authorization: 'Bearer axle-user-key-a' };
  const b = { authorization: 'Bearer axle-user-key-b' };
  const pending = [
    app.inject(check(1, a)),
    app.inject(check(2, a)),
    app.inject(check(3, b)),
    app.inject(check(4)),
    app.inject(check(5)),
  ];
  await until(() => g.started() === 4, 'four active requests');
  const { callers } = (await app.inject({ method: 'GET', url: '/v1/status' })).json().admission;
  const bearers = Object.entries(callers as Record<string, { active: number; queued: number }>).filter(([id]) =>
    id.startsWith('bearer-'),
  );
  t.same(
    bearers.map(([, c]) => c.active).sort(),
    [1, 2],
    'each distinct bearer is its own caller, with more than one active request',
  );
  t.notOk(
    bearers.some(([id]) => id.includes('axle-user')),
    'a bearer is labelled by a digest prefix, never its value',
  );
  t.same(callers.anonymous, { active: 1, queued: 1 }, 'no key: the spec limit of one active request');
  g.release();
  for (const r of await Promise.all(pending)) t.equal(r.statusCode, 200);
});

t.test('open mode: distinct bearers past the bound share one caller', async (t) => {
  const ring = new KeyRing([], { anonymous: 1, user: 20, admin: 64 }, { openBearers: 2 });
  t.ok(ring.open);
  t.match(ring.describe(), /open mode.*any "Authorization: Bearer" value is served as a key/);
  const ids = ['k-1', 'k-2', 'k-3', 'k-4', 'k-1'].map((k) => ring.identify(`Bearer ${k}`).id);
  t.not(ids[0], ids[1]);
  t.equal(ids[2], OPEN_OVERFLOW_ID, 'a third distinct bearer gets the shared caller');
  t.equal(ids[3], OPEN_OVERFLOW_ID);
  t.equal(ids[4], ids[0], 'a known bearer keeps its own caller');
  t.equal(ring.identify(`Bearer k-9`).keyClass, 'user');
  t.throws(() => ring.identify('Basic dXNlcjpwYXNz'), { code: 'unauthorized' }, 'only Bearer is a key');
});

t.test('keys configured: unknown key 401 on tools; listings need no key', async (t) => {
  const app = await makeApp({ config: testConfig({ keys: [{ key: 'configured-key-1' }] }) });
  t.teardown(() => app.close());
  const stranger = { authorization: 'Bearer axle-user-key-a' };
  const tool = await app.inject(check(1, stranger));
  t.equal(tool.statusCode, 401);
  t.equal(tool.json().error.code, 'unauthorized');
  for (const url of ['/v1/status', '/v1/environments']) {
    t.equal(
      (await app.inject({ method: 'GET', url, headers: stranger })).statusCode,
      200,
      `${url} with an unknown key`,
    );
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 200, `${url} without a key`);
  }
  t.match(
    (await app.inject({ method: 'GET', url: '/v1/status' })).json(),
    { keys_configured: 1 },
    'status says keys are configured',
  );
});

t.test('one anonymous client at twice the default fan-out: 40 concurrent requests, none refused', async (t) => {
  const defaults = configSchema.parse({}).admission;
  t.ok(defaults.anonymousQueueLimit >= 40, `the default anonymous queue (${defaults.anonymousQueueLimit}) holds 40`);
  const g = gatedTools();
  // The default admission settings, as a daemon started without configuration has them.
  const app = await makeApp({ tools: g.tools, config: testConfig({ admission: defaults }) });
  t.teardown(() => app.close());
  const pending = Array.from({ length: 40 }, (_, i) => app.inject(check(i)));
  await until(() => g.started() === 1, 'the first request to start');
  const status = (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  t.same(status.admission.callers.anonymous, { active: 1, queued: 39 }, 'one active, the rest queued');
  g.release();
  const codes = (await Promise.all(pending)).map((r) => r.statusCode);
  t.same(codes, Array(40).fill(200), 'all 40 answered, none 429');
});

t.test('the startup log says which mode the daemon is in', async (t) => {
  const { Writable } = await import('node:stream');
  const { default: pino } = await import('pino');
  const capture = () => {
    const lines: { msg?: string; openMode?: boolean }[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as { msg?: string });
        done();
      },
    });
    return { lines, logger: pino({ level: 'info' }, sink) };
  };
  const open = capture();
  const a = await makeApp({ logger: open.logger });
  await a.close();
  t.match(
    open.lines.find((l) => l.openMode !== undefined),
    {
      openMode: true,
      msg: /^open mode: no API keys configured, so any "Authorization: Bearer" value is served as a key/,
    },
  );
  const keyed = capture();
  const b = await makeApp({ logger: keyed.logger, config: testConfig({ keys: [{ key: 'configured-key-1' }] }) });
  await b.close();
  t.match(
    keyed.lines.find((l) => l.openMode !== undefined),
    { openMode: false, msg: /1 API key\(s\) configured: an unknown key gets 401/ },
  );
});
