/** The client against the real daemon on loopback: retries on 429/503 only, bounded concurrency. */
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { LeanToolClient, ServiceRequestError } from '../../src/client/client.ts';
import { emptyMessages } from '../../src/contract/common.ts';
import type { ToolTable } from '../../src/tools/types.ts';
import { makeApp, sleep, testConfig, TEST_ENV } from '../helpers.ts';

/** A check that sleeps `content` ms and records how many run at once. */
function slowCheck(stats: { running: number; peak: number; calls: number }): ToolTable {
  return {
    check: {
      needsLean: () => true,
      run: async (req) => {
        stats.calls++;
        stats.running++;
        stats.peak = Math.max(stats.peak, stats.running);
        await sleep(Number(req.content.split(' ')[0]));
        stats.running--;
        return { okay: true, content: req.content, lean_messages: emptyMessages(), tool_messages: emptyMessages(), failed_declarations: [], timings: { total_ms: 0 } };
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
  const app = await makeApp({ tools: slowCheck(stats), config: testConfig({ admission: { anonymousQueueLimit: 0, retryAfterSeconds: 1 } }) });
  t.teardown(() => app.close());
  const url = await listen(app);
  const retries: number[] = [];
  const client = new LeanToolClient({ url, env: {}, backoff: fast, onRetry: (r) => retries.push(r.error.status) });
  const first = client.check({ content: '1500 a', environment: TEST_ENV });
  await sleep(100);
  const second = await client.check({ content: '10 b', environment: TEST_ENV });
  t.equal(second.content, '10 b');
  t.ok(retries.length >= 1 && retries.every((s) => s === 429), `retried on 429 (${retries.length}×)`);
  await first;
});

t.test('503 (environment becoming available) is retried', async (t) => {
  let probes = 0;
  const stats = { running: 0, peak: 0, calls: 0 };
  const app = await makeApp({
    tools: slowCheck(stats),
    config: testConfig({ availabilityTtlSeconds: 0 }),
    probe: () => (++probes <= 2 ? { available: false, reason: 'toolchain being installed (test)' } : { available: true }),
  });
  t.teardown(() => app.close());
  const client = new LeanToolClient({ url: await listen(app), env: {}, backoff: fast });
  const retries: number[] = [];
  const c2 = new LeanToolClient({ url: client.url, env: {}, backoff: fast, onRetry: (r) => retries.push(r.error.status) });
  const r = await c2.check({ content: '1 x', environment: TEST_ENV });
  t.equal(r.okay, true);
  t.same(retries, [503, 503]);
});

t.test('400 is not retried; the error carries code and fields', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  let retried = 0;
  const client = new LeanToolClient({ url: await listen(app), env: {}, backoff: fast, onRetry: () => retried++ });
  const err = await client.theorem2sorry({ content: 'x', environment: TEST_ENV, names: ['a'], indices: [0] }).catch((e: unknown) => e);
  t.ok(err instanceof ServiceRequestError);
  t.equal((err as ServiceRequestError).status, 400);
  t.equal((err as ServiceRequestError).code, 'invalid_request');
  t.same((err as ServiceRequestError).details?.map((d) => d.field), ['names', 'indices']);
  t.equal(retried, 0);
});

t.test('never more than maxConcurrency requests in flight', async (t) => {
  const stats = { running: 0, peak: 0, calls: 0 };
  const app = await makeApp({ tools: slowCheck(stats), config: testConfig({ keys: [{ key: 'client-key-1', concurrency: 100 }] }) });
  t.teardown(() => app.close());
  const client = new LeanToolClient({ url: await listen(app), apiKey: 'client-key-1', maxConcurrency: 3, env: {} });
  const all = await Promise.all(Array.from({ length: 12 }, (_, i) => client.check({ content: `60 r${i}`, environment: TEST_ENV })));
  t.equal(all.length, 12);
  t.equal(stats.calls, 12);
  t.equal(stats.peak, 3, 'the daemon saw at most 3 at once');
  t.equal(client.peakInFlight, 3);
});

t.test('configuration from the spec’s variables', async (t) => {
  const c = new LeanToolClient({ env: { SERVICE_API_URL: 'http://h:1/', SERVICE_TIMEOUT_SECONDS: '5', SERVICE_MAX_CONCURRENCY: '7', SERVICE_API_KEY: 'k' } });
  t.same([c.url, c.timeoutSeconds, c.maxConcurrency], ['http://h:1', 5, 7]);
  const d = new LeanToolClient({ env: {} });
  t.same([d.url, d.timeoutSeconds, d.maxConcurrency], ['http://127.0.0.1:8080', 1800, 20]);
  t.type(d.normalize, 'function', 'one method per tool');
});
