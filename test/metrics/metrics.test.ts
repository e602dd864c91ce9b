/** GET /metrics on a single machine (no NATS): Prometheus text with requests, latency, admission, sessions and cache. */
import t from 'tap';
import { makeApp, TEST_ENV } from '../helpers.ts';

t.test('a single-machine daemon serves Prometheus metrics that follow its requests', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  t.equal(app.cluster, undefined, 'no cluster without a NATS URL');
  const body = JSON.stringify({ content: 'theorem foo : True := by\n  trivial\n', environment: TEST_ENV });
  const post = () =>
    app.inject({
      method: 'POST',
      url: '/api/v1/theorem2sorry',
      payload: body,
      headers: { 'content-type': 'application/json' },
    });
  t.equal((await post()).statusCode, 200);
  t.equal((await post()).headers['x-cache'], 'hit');
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/theorem2sorry',
        payload: '{"content": 1}',
        headers: { 'content-type': 'application/json' },
      })
    ).statusCode,
    400,
  );
  const r = await app.inject({ method: 'GET', url: '/metrics' });
  t.equal(r.statusCode, 200);
  t.match(r.headers['content-type'], /^text\/plain/);
  t.match(r.body, /lean_tool_requests_total\{tool="theorem2sorry",status="200"\} 2/);
  t.match(r.body, /lean_tool_requests_total\{tool="theorem2sorry",status="400"\} 1/);
  t.match(r.body, /lean_tool_request_duration_seconds_count\{tool="theorem2sorry",cache="hit"\} 1/);
  t.match(r.body, /lean_tool_request_duration_seconds_count\{tool="theorem2sorry",cache="miss"\} 1/);
  t.match(r.body, /lean_tool_cache_lookups_total\{result="hit"\} 1/);
  t.match(r.body, /lean_tool_admission_requests\{state="queued"\} 0/);
  t.notMatch(r.body, /lean_tool_cluster_queue_depth\{/, 'no cluster queues on one machine');
  t.notMatch(r.body, /"cluster"/);
  const status = (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  t.notOk('cluster' in status, 'status has no cluster section on one machine');
});

t.test("metrics follow the daemon's keys: a bad key is refused", async (t) => {
  const app = await makeApp({
    config: (await import('../helpers.ts')).testConfig({ keys: [{ key: 'metrics-key-1' }] }),
  });
  t.teardown(() => app.close());
  const r = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope-not-a-key' } });
  t.equal(r.statusCode, 401);
});

t.test('pool sessions by state and retirements by reason appear once a pool exists', async (t) => {
  const app = await makeApp({ config: (await import('../helpers.ts')).testConfig({ lean: { minWarm: 1 } }) });
  t.teardown(() => app.close());
  // Polled until the pool is warm (no wall-clock bound: one that never warms fails at tap's timeout).
  let body: string;
  for (;;) {
    body = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    if (/lean_tool_sessions\{environment="lean-test",state="idle"\} 1/.test(body)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(
    body,
    /lean_tool_sessions\{environment="lean-test",state="idle"\} 1/,
    'the warm fake session is counted idle',
  );
  t.match(body, /lean_tool_session_waiters\{environment="lean-test"\} 0/);
});

t.test('tool names callers send never become labels: /metrics stays the same size', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const bad = (i: number) =>
    app.inject({
      method: 'POST',
      url: i % 2 ? `/api/v1/no-such-tool-${i}` : `/v1/svc/no-such-tool-${i}`,
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
  const scrape = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;
  // The per-request series' lines (prom-client's process gauges come and go with the GC's work).
  const requestLines = (text: string) => text.split('\n').filter((l) => l.startsWith('lean_tool_request')).length;
  for (let i = 0; i < 4; i++) t.equal((await bad(i)).statusCode, 404);
  const before = await scrape();
  for (let i = 4; i < 1004; i++) await bad(i);
  const after = await scrape();
  t.notMatch(after, /no-such-tool/, 'no label value from a request path');
  t.match(after, /lean_tool_requests_total\{tool="other",status="404"\} 1004/);
  t.equal(requestLines(after), requestLines(before), 'the same request series after 1,000 more names');
  t.ok(after.length < 64 * 1024, `${after.length} characters`);
});
