/** The client against the real daemon on loopback: retries on 429/503 only, gives up on a refused connection, bounded concurrency. */
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { TOOL_NAMES } from '../../src/contract/tools.ts';
import { LeanToolClient, ServiceRequestError } from '../../src/client/client.ts';
import type { ToolTable } from '../../src/tools/types.ts';
import { ServiceError } from '../../src/errors.ts';
import { checkResult, makeApp, sleep, testConfig, TEST_ENV, UNAVAILABLE_ENV } from '../helpers.ts';

/** A check that sleeps `content` ms and records how many run at once. */
/** A check that takes the ms its content starts with, or with content `hold …` runs until `held` resolves. */
function slowCheck(stats: { running: number; peak: number; calls: number }, held?: Promise<void>): ToolTable {
  return {
    check: {
      needsLean: () => true,
      run: async (req) => {
        stats.calls++;
        stats.running++;
        stats.peak = Math.max(stats.peak, stats.running);
        const [ms] = req.content.split(' ');
        await (ms === 'hold' ? held : sleep(Number(ms)));
        stats.running--;
        return checkResult(req.content);
      },
    },
  };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

const fast = { initialMs: 50, maxMs: 200 };

t.test('429 is retried (honouring Retry-After) until it succeeds', async (t) => {
  const stats = { running: 0, peak: 0, calls: 0 };
  // The first holds the only slot until the second has been refused once: a 1.5 s run could end before the second
  // arrived on a loaded machine (then nothing was retried).
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const app = await makeApp({
    tools: slowCheck(stats, held),
    config: testConfig({ admission: { anonymousQueueLimit: 0, retryAfterSeconds: 1 } }),
  });
  t.teardown(() => app.close());
  const url = await listen(app);
  const retries: number[] = [];
  const onRetry = (r: { error: { status: number } }) => (retries.push(r.error.status), release());
  const client = new LeanToolClient({ url, env: {}, backoff: fast, onRetry });
  const first = client.check({ content: 'hold a', environment: TEST_ENV });
  // Once the first holds the only slot (waited for, not a fixed pause a loaded machine could outlast): the second gets 429.
  while (stats.running === 0) await sleep(5);
  const second = await client.check({ content: '10 b', environment: TEST_ENV });
  t.equal(second.content, '10 b');
  t.ok(retries.length >= 1 && retries.every((s) => s === 429), `retried on 429 (${retries.length}×)`);
  await first;
});

t.test('503 (overloaded: clears by itself) is retried', async (t) => {
  let calls = 0;
  const app = await makeApp({
    tools: {
      check: {
        needsLean: () => true,
        run: async (req) => {
          if (++calls <= 2) throw new ServiceError('overloaded', 'no Lean worker free (test)');
          return checkResult(req.content);
        },
      },
    },
  });
  t.teardown(() => app.close());
  const retries: number[] = [];
  const client = new LeanToolClient({
    url: await listen(app),
    env: {},
    backoff: fast,
    onRetry: (r) => retries.push(r.error.status),
  });
  const r = await client.check({ content: '1 x', environment: TEST_ENV });
  t.equal(r.okay, true);
  t.same(retries, [503, 503]);
});

t.test('an environment that cannot run Lean is permanent: 409 at once, not retried, naming the fix', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  let retried = 0;
  const client = new LeanToolClient({ url: await listen(app), env: {}, backoff: fast, onRetry: () => retried++ });
  const err = (await client
    .theorem2sorry({ content: 'theorem a : 1 = 1 := rfl', environment: UNAVAILABLE_ENV })
    .catch((e: unknown) => e)) as ServiceRequestError;
  t.equal(retried, 0, 'answered at once: not retried');
  t.equal(err.status, 409);
  t.equal(err.code, 'environment_unavailable');
  t.match(err.message, /cannot run Lean: no Lean toolchain found/);
  t.match(err.message, /"reparse": false/, 'the tool has reparse: the message says so');
  const chk = (await client
    .check({ content: 'x', environment: UNAVAILABLE_ENV })
    .catch((e: unknown) => e)) as ServiceRequestError;
  t.equal(chk.status, 409);
  t.notMatch(chk.message, /reparse/, 'check has no reparse: not mentioned');
});

t.test('connection refused: given up within the connect window, naming SERVICE_API_URL', async (t) => {
  // A port nothing listens on: bind one, note it, close it.
  const probe = await makeApp();
  const url = await listen(probe);
  await probe.close();
  const retries: string[] = [];
  const client = new LeanToolClient({
    url,
    env: {},
    backoff: fast,
    connectWindowSeconds: 1,
    onRetry: (r) => retries.push(r.error.code),
  });
  // Gave up (the 1 s connect window, not the 1800 s timeout one: that would end at tap's timeout).
  const err = (await client.environments().catch((e: unknown) => e)) as ServiceRequestError;
  t.equal(err.code, 'connection_refused');
  t.match(err.message, url);
  t.match(err.message, /connection refused/);
  t.match(err.message, /SERVICE_API_URL/);
  t.ok(
    retries.length >= 1 && retries.every((c) => c === 'connection_refused'),
    `retried ${retries.length}× within the window (a restarting daemon)`,
  );
});

t.test('400 is not retried; the error carries code and fields', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  let retried = 0;
  const client = new LeanToolClient({ url: await listen(app), env: {}, backoff: fast, onRetry: () => retried++ });
  const err = await client
    .theorem2sorry({ content: 'x', environment: TEST_ENV, names: ['a'], indices: [0] })
    .catch((e: unknown) => e);
  t.ok(err instanceof ServiceRequestError);
  t.equal((err as ServiceRequestError).status, 400);
  t.equal((err as ServiceRequestError).code, 'invalid_request');
  t.same(
    (err as ServiceRequestError).details?.map((d) => d.field),
    ['names', 'indices'],
  );
  t.equal(retried, 0);
});

t.test('never more than maxConcurrency requests in flight', async (t) => {
  const stats = { running: 0, peak: 0, calls: 0 };
  const app = await makeApp({
    tools: slowCheck(stats),
    config: testConfig({ keys: [{ key: 'client-key-1', concurrency: 100 }] }),
  });
  t.teardown(() => app.close());
  const client = new LeanToolClient({ url: await listen(app), apiKey: 'client-key-1', maxConcurrency: 3, env: {} });
  const all = await Promise.all(
    Array.from({ length: 12 }, (_, i) => client.check({ content: `60 r${i}`, environment: TEST_ENV })),
  );
  t.equal(all.length, 12);
  t.equal(stats.calls, 12);
  t.equal(stats.peak, 3, 'the daemon saw at most 3 at once');
  t.equal(client.peakInFlight, 3);
});

t.test('configuration from the spec’s variables', async (t) => {
  const c = new LeanToolClient({
    env: {
      SERVICE_API_URL: 'http://h:1/',
      SERVICE_TIMEOUT_SECONDS: '5',
      SERVICE_MAX_CONCURRENCY: '7',
      SERVICE_API_KEY: 'k',
    },
  });
  t.same([c.url, c.timeoutSeconds, c.maxConcurrency], ['http://h:1', 5, 7]);
  const d = new LeanToolClient({ env: {} });
  t.same([d.url, d.timeoutSeconds, d.maxConcurrency], ['http://127.0.0.1:8080', 1800, 20]);
  t.equal(
    new LeanToolClient({ env: { SERVICE_API_URL: 'http://h:1/api///' } }).url,
    'http://h:1/api',
    'every trailing slash',
  );
});

t.test('one method per tool, each calling its own route', async (t) => {
  const c = new LeanToolClient({ env: {} });
  const called: string[] = [];
  // Shadow `call` on the instance: every tool method goes through it with its tool's name.
  Object.assign(c, { call: async (tool: string) => void called.push(tool) });
  const methods = c as unknown as Record<string, (r: object) => Promise<unknown>>;
  for (const tool of TOOL_NAMES) {
    t.type(methods[tool], 'function', `${tool} is a method`);
    await methods[tool]!({ content: 'x' });
  }
  t.same(called, [...TOOL_NAMES], 'each method calls its own tool, in order');
});

t.test(
  "a Lean timeout (the fake REPL hangs) reaches the client in AXLE's LeanTimeout shape, not retried",
  async (t) => {
    const app = await makeApp();
    t.teardown(() => app.close());
    const url = await listen(app);
    // The wire: AXLE's newer client raises LeanTimeout on exactly this 200 body (docs/errors.md).
    const warm = { content: 'def warm := 1\n', environment: TEST_ENV };
    t.equal((await fetch(`${url}/api/v1/check`, { method: 'POST', body: JSON.stringify(warm) })).status, 200);
    const wire = await fetch(`${url}/api/v1/check`, {
      method: 'POST',
      body: JSON.stringify({ content: 'HANG\n', environment: TEST_ENV, timeout_seconds: 0.3 }),
    });
    t.equal(wire.status, 200);
    t.match(await wire.json(), { error: /lean worker timeout/, error_type: 'LeanTimeout' });
    const retries: number[] = [];
    const client = new LeanToolClient({ url, env: {}, backoff: fast, onRetry: (i) => retries.push(i.attempt) });
    // The hung process is killed after the grace: warm its replacement, so the deadline lands on Lean's run again.
    await client.call('check', { content: 'def warm2 := 1\n', environment: TEST_ENV });
    const err = await client
      .call('check', { content: 'HANG\n', environment: TEST_ENV, timeout_seconds: 0.3 })
      .catch((e: unknown) => e);
    t.ok(err instanceof ServiceRequestError, 'thrown, not returned as a result');
    t.match(err, { code: 'lean_timeout', status: 200, retryable: false, errorType: 'LeanTimeout' });
    t.same(retries, [], 'never retried');
  },
);

t.test("a Lean process over its memory cap is AXLE's LeanResourceExceeded", async (t) => {
  const app = await makeApp({ config: testConfig({ lean: { maxRssMb: 150, rssPollMs: 50 } }) });
  t.teardown(() => app.close());
  const client = new LeanToolClient({ url: await listen(app), env: {}, backoff: fast });
  const err = await client.call('check', { content: 'GROW 400\n', environment: TEST_ENV }).catch((e: unknown) => e);
  t.match(err, { code: 'lean_resource_exceeded', errorType: 'LeanResourceExceeded', message: /memory limit/ });
});
