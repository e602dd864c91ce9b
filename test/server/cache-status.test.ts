/**
 * A cached result does not tell one caller what another sent: by default (server.cacheStatus
 * off) no answer says whether it came from the cache, on the hit front's fast path, fastify's
 * route and the stream alike; the switch (a daemon with one caller) marks them again.
 */
import t, { type Test } from 'tap';
import { configSchema } from '../../src/config.ts';
import { makeApp, testConfig, validRequest } from '../helpers.ts';
import { listenLoopback, openStreamSocket } from '../helpers/loopback.ts';

const KEYS = [
  { key: 'cache-status-alice', name: 'alice' },
  { key: 'cache-status-bob-1', name: 'bob' },
];
const BODY = JSON.stringify({ ...validRequest('theorem2sorry'), reparse: false });

async function daemon(t: Test, cacheStatus: boolean) {
  const app = await makeApp({ config: testConfig({ keys: KEYS, server: { cacheStatus } }) });
  t.teardown(() => app.close());
  const { http } = await listenLoopback(app);
  const post = async (key: string, body = BODY) => {
    const res = await fetch(`${http}/api/v1/theorem2sorry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    });
    await res.text();
    return res;
  };
  const hits = async () => {
    const m = await (
      await fetch(`${http}/metrics`, { headers: { authorization: 'Bearer cache-status-alice' } })
    ).text();
    return Number(
      /lean_tool_request_duration_seconds_count\{tool="theorem2sorry",cache="hit"\} (\d+)/.exec(m)?.[1] ?? 0,
    );
  };
  return { app, post, hits };
}

t.test('by default no answer says it came from the cache: fast path, route and stream', async (t) => {
  t.equal(configSchema.parse({}).server.cacheStatus, false, 'off by default');
  const { app, post, hits } = await daemon(t, false);
  const miss = await post('cache-status-alice');
  t.equal(miss.status, 200);
  // Bob sends Alice's exact bytes: the hit front answers (the fast path).
  const fast = await post('cache-status-bob-1');
  // The same request in other bytes: found by fastify's route after validation (the plain path).
  const plain = await post('cache-status-bob-1', ` ${BODY}`);
  t.equal(await hits(), 2, 'both were hits');
  for (const [name, r] of [
    ['miss', miss],
    ['fast-path hit', fast],
    ['route hit', plain],
  ] as const) {
    t.equal(r.status, 200);
    t.equal(r.headers.get('x-cache'), null, `${name}: no x-cache`);
  }
  // A miss also says the deadline it ran under (x-deadline-seconds); a hit ran under none.
  const names = (r: Response) => [...r.headers.keys()].filter((k) => k !== 'date' && k !== 'x-deadline-seconds');
  t.same(names(fast), names(miss), 'a hit has the same headers as a miss');
  t.same(names(plain), names(fast), 'the fast path and the route send the same headers');
  const { ws, events } = await openStreamSocket(app, { authorization: 'Bearer cache-status-bob-1' });
  ws.send(JSON.stringify({ id: 's', tool: 'theorem2sorry', request: JSON.parse(BODY) }));
  for (let i = 0; i < 2000 && !events.some((e) => e.event === 'result'); i++)
    await new Promise((r) => setTimeout(r, 10));
  ws.close();
  const result = events.find((e) => e.event === 'result');
  t.ok(result, 'the stream answered');
  t.notOk(result && 'cache' in result, 'the stream result has no cache member');
  t.equal(await hits(), 2, 'the stream hit is not an HTTP request');
});

t.test('server.cacheStatus on (one caller): both paths and the stream mark hits and misses', async (t) => {
  const { app, post } = await daemon(t, true);
  t.equal((await post('cache-status-alice')).headers.get('x-cache'), 'miss');
  t.equal((await post('cache-status-alice')).headers.get('x-cache'), 'hit', 'fast path');
  t.equal((await post('cache-status-alice', ` ${BODY}`)).headers.get('x-cache'), 'hit', 'route');
  const { ws, events } = await openStreamSocket(app, { authorization: 'Bearer cache-status-alice' });
  ws.send(JSON.stringify({ id: 's', tool: 'theorem2sorry', request: JSON.parse(BODY) }));
  for (let i = 0; i < 2000 && !events.some((e) => e.event === 'result'); i++)
    await new Promise((r) => setTimeout(r, 10));
  ws.close();
  t.match(
    events.find((e) => e.event === 'result'),
    { cache: 'hit' },
  );
});
