/**
 * Issue 29 item 5: `info.request_id` on every tool response (a fresh UUID per request, cache
 * hits included), in the request log line and on the WebSocket; shared links saved by the
 * caller that made the request, bounded, and not stored at all when disabled.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { ResultCache } from '../../src/cache/result-cache.ts';
import { newRequestId, withRequestId } from '../../src/server/request-id.ts';
import { makeApp, TEST_ENV, testConfig } from '../helpers.ts';
import { listenLoopback, openStreamSocket } from '../helpers/loopback.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
// theorem2sorry with "reparse": false needs no Lean: a real tool, answered on this machine.
const body = { content: 'theorem a : 1 = 1 := rfl', environment: TEST_ENV, reparse: false };
const run = (headers: Record<string, string> = {}, payload: object = body) => ({
  method: 'POST' as const,
  url: '/api/v1/theorem2sorry',
  headers: { 'content-type': 'application/json', ...headers },
  payload: JSON.stringify(payload),
});
const share = (request_id: string, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/v1/shared-links',
  headers: { 'content-type': 'application/json', ...headers },
  payload: JSON.stringify({ request_id }),
});

t.test('newRequestId: version 4 UUIDs, distinct across entropy refills, every random digit varying', async (t) => {
  const ids = Array.from({ length: 2000 }, () => newRequestId());
  t.equal(ids.filter((id) => !UUID.test(id)).length, 0, 'all are v4 UUIDs');
  t.equal(new Set(ids).size, ids.length, 'all distinct');
  // Each position other than the dashes and the version digit takes several values.
  const fixed = [...ids[0]!].map((_, i) => i).filter((i) => new Set(ids.map((id) => id[i])).size < 4);
  t.same(fixed, [8, 13, 14, 18, 23], 'only the dashes and the version digit are constant');
});

t.test('withRequestId splices info into serialised objects without touching the rest', async (t) => {
  const id = '0b6f8c8e-2f7e-4c1a-9d7e-6a1c2b3d4e5f';
  t.same(JSON.parse(String(withRequestId(Buffer.from('{"a":[1,{"b":"}"}]}'), id))), {
    a: [1, { b: '}' }],
    info: { request_id: id },
  });
  t.same(JSON.parse(String(withRequestId(Buffer.from('{}'), id))), { info: { request_id: id } });
  t.same(JSON.parse(String(withRequestId(Buffer.from('{ \n}'), id))), { info: { request_id: id } });
  t.equal(
    String(withRequestId(Buffer.from('{"a":1}\n  '), id)),
    `{"a":1,"info":{"request_id":"${id}"}}`,
    'what follows the closing brace is not kept',
  );
  t.equal(String(withRequestId(Buffer.from('[1'), id)), '[1', 'no object: unchanged');
  // A stored result (ResultCache) ends in its `info` with a placeholder id: this id is written over it.
  const cache = new ResultCache(1 << 20);
  cache.set('k', { a: { info: { x: 1 } }, s: '"request_id":"' }, undefined, '"p":"}"');
  t.equal(
    String(withRequestId(cache.get('k')!.body, id)),
    `{"a":{"info":{"x":1}},"s":"\\"request_id\\":\\"","timings":{"total_ms":0},"info":{"p":"}","request_id":"${id}"}}`,
  );
  cache.set('e', { a: 1 });
  t.equal(
    String(withRequestId(cache.get('e')!.body, 'short')),
    '{"a":1,"timings":{"total_ms":0},"info":{"request_id":"short"}}',
    'no provenance: the id alone; any id length',
  );
});

t.test('every response has its own request_id, cache hits included; the log line names it', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const app = await makeApp({ logger: pino({ level: 'info' }, sink) });
  t.teardown(() => app.close());
  const miss = await app.inject(run());
  const hit = await app.inject(run());
  t.equal(miss.statusCode, 200);
  t.equal(miss.headers['x-cache'], 'miss');
  t.equal(hit.headers['x-cache'], 'hit');
  const a = miss.json();
  const b = hit.json();
  t.match(a.info.request_id, UUID);
  t.match(b.info.request_id, UUID);
  t.not(a.info.request_id, b.info.request_id, 'a hit gets its own id');
  t.equal(b.content, a.content, 'the rest of the hit is the cached result');
  t.same({ ...b.info, request_id: 0 }, { ...a.info, request_id: 0 }, "the hit's provenance is the miss's");
  t.ok('_executor_lean_toolchain' in a.info && '_executor_commit_sha' in a.info, 'AXLE-named provenance fields');
  const logged = lines.filter((l) => l.msg === 'request').map((l) => l.requestId);
  t.same(logged, [a.info.request_id, b.info.request_id], 'the request log lines carry the ids');
});

t.test('WebSocket: events and the result carry the request id', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await listenLoopback(app);
  const { ws, events } = await openStreamSocket(app);
  ws.send(JSON.stringify({ id: 'x', tool: 'theorem2sorry', request: body }));
  ws.send(JSON.stringify({ id: 'y', tool: 'theorem2sorry', request: body }));
  while (events.filter((e) => e.event === 'result').length < 2) await new Promise((r) => setTimeout(r, 10));
  ws.close();
  const results = events.filter((e) => e.event === 'result') as { request_id: string; result: { info: unknown } }[];
  t.equal(results.length, 2);
  for (const r of results) {
    t.match(r.request_id, UUID);
    t.match(r.result.info, { request_id: r.request_id }, 'the result has the same id in info');
    t.match(
      r.result.info,
      { _executor_lean_toolchain: String, _executor_commit_sha: /^[0-9a-f]{40}$|^$/ },
      'and the provenance',
    );
  }
  for (const e of events.filter((e) => e.event !== 'result'))
    t.equal(e.request_id, results.find((r) => (r as unknown as { id: string }).id === e.id)?.request_id);
  t.not(results[0]!.request_id, results[1]!.request_id);
});

t.test('shared links: the caller saves its request; anyone may read it; others may not save it', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const mine = { authorization: 'Bearer axle-user-key-a' };
  const r = await app.inject(run(mine));
  const id = r.json().info.request_id as string;
  const other = await app.inject(share(id, { authorization: 'Bearer axle-user-key-b' }));
  t.equal(other.statusCode, 404, 'another caller cannot share it (and learns nothing about it)');
  t.equal((await app.inject(share(id))).statusCode, 404, 'nor can an anonymous caller');
  const saved = await app.inject(share(id, mine));
  t.equal(saved.statusCode, 201);
  t.match(saved.json(), { request_id: id, tool_name: 'theorem2sorry', saved_at: String });
  t.ok(!Number.isNaN(Date.parse(saved.json().saved_at)));
  t.equal((await app.inject(share(id, mine))).json().saved_at, saved.json().saved_at, 'saving again is idempotent');
  const got = await app.inject({ method: 'GET', url: `/v1/shared-links/${id}` });
  t.equal(got.statusCode, 200);
  const link = got.json();
  t.same(Object.keys(link).sort(), ['created_at', 'inputs', 'request_id', 'result', 'state', 'tool_name']);
  t.same(link.inputs, body, 'inputs: the request as sent');
  t.same(link.result, r.json(), 'result: the response as sent');
  t.equal(link.state, 'completed');
  const unknown = await app.inject({ method: 'GET', url: '/v1/shared-links/0b6f8c8e-2f7e-4c1a-9d7e-6a1c2b3d4e5f' });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().error.code, 'not_found');
  const bad = await app.inject({ ...share('not-a-uuid'), payload: '{"request_id": 3}' });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().error.details[0].field, 'request_id');
});

t.test('shared links: anonymous callers may share in open mode only', async (t) => {
  const open = await makeApp();
  t.teardown(() => open.close());
  const id = (await open.inject(run())).json().info.request_id as string;
  t.equal((await open.inject(share(id))).statusCode, 201, 'open mode: anonymous shares its own');
  const keyed = await makeApp({ config: testConfig({ keys: [{ key: 'configured-key-1' }] }) });
  t.teardown(() => keyed.close());
  const anon = (await keyed.inject(run())).json().info.request_id as string;
  t.equal((await keyed.inject(share(anon))).statusCode, 404, 'keys configured: anonymous cannot');
  const auth = { authorization: 'Bearer configured-key-1' };
  const keyedId = (await keyed.inject(run(auth))).json().info.request_id as string;
  t.equal((await keyed.inject(share(keyedId, auth))).statusCode, 201, 'the key that made it can');
});

t.test('shared links: bounded in bytes and time; nothing stored when disabled', async (t) => {
  const small = await makeApp({ config: testConfig({ sharedLinks: { recentMaxBytes: 2000 } }) });
  t.teardown(() => small.close());
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      (await small.inject(run({}, { ...body, content: `theorem a${i} : 1 = 1 := rfl` }))).json().info.request_id,
    );
  const stats = (await small.inject({ method: 'GET', url: '/v1/status' })).json().shared_links;
  t.ok(
    stats.recentBytes <= 2000 && stats.recent > 0,
    `recent requests stay within the bound (${stats.recentBytes} bytes)`,
  );
  t.ok(stats.recent < 5, `the oldest were dropped (${stats.recent} kept)`);
  t.equal((await small.inject(share(ids[0]!))).statusCode, 404, 'the oldest cannot be shared any more');
  t.equal((await small.inject(share(ids[4]!))).statusCode, 201, 'the newest can');

  const brief = await makeApp({ config: testConfig({ sharedLinks: { recentSeconds: 0.05 } }) });
  t.teardown(() => brief.close());
  const old = (await brief.inject(run())).json().info.request_id as string;
  await new Promise((r) => setTimeout(r, 120));
  t.equal((await brief.inject(share(old))).statusCode, 404, 'past recentSeconds a request cannot be shared');

  const off = await makeApp({ config: testConfig({ sharedLinks: { enabled: false } }) });
  t.teardown(() => off.close());
  const offId = (await off.inject(run())).json().info.request_id as string;
  t.match(offId, UUID, 'responses still carry their id');
  const refused = await off.inject(share(offId));
  t.equal(refused.statusCode, 404);
  t.match(refused.json().error.message, /disabled/);
  t.same(
    (await off.inject({ method: 'GET', url: '/v1/status' })).json().shared_links,
    { enabled: false, recent: 0, saved: 0, recentBytes: 0, savedBytes: 0 },
    'nothing stored',
  );
});

t.test('recent requests: UUIDs kept as their bits are found exactly, other ids as strings', async (t) => {
  const { RecentRequests } = await import('../../src/server/recent-requests.ts');
  const ring = new RecentRequests(8, 1_000, 60_000);
  const add = (id: string, tool: string) => ring.add(id, tool, 'anonymous', 'anonymous', '{}', '{}', false, 10);
  const a = newRequestId();
  const b = newRequestId();
  add(a, 'one');
  add('req-not-a-uuid', 'two');
  add(b, 'three');
  t.equal(ring.get(a)?.tool, 'one');
  t.equal(ring.get(b)?.tool, 'three');
  t.equal(ring.get('req-not-a-uuid')?.tool, 'two');
  t.equal(ring.get(a.toUpperCase()), undefined, 'another spelling is another id');
  const last = a.at(-1) === '0' ? '1' : '0';
  t.equal(ring.get(a.slice(0, -1) + last), undefined, 'one digit differs: not found');
  t.equal(ring.get(`${a.slice(0, 8)}x${a.slice(9)}`), undefined, 'not a UUID, not kept: not found');
});

t.test('recent requests: a ring bounded by slots, bytes and age', async (t) => {
  const { RecentRequests } = await import('../../src/server/recent-requests.ts');
  const ring = new RecentRequests(2, 100, 1_000);
  const add = (id: string, size: number) => ring.add(id, 'check', 'anonymous', 'anonymous', '{}', '{}', false, size);
  add('a', 10);
  add('b', 10);
  add('c', 10);
  t.equal(ring.get('a'), undefined, 'past the slots, the oldest goes');
  t.match(ring.get('b'), { tool: 'check', size: 10 });
  add('d', 95);
  t.equal(ring.size, 1, 'past the bytes, the oldest go until it fits');
  t.equal(ring.bytes, 95);
  t.equal(ring.get('c'), undefined);
  add('huge', 101);
  t.ok(ring.get('d') && !ring.get('huge'), 'one larger than the bound is not kept, and drops nothing');
  t.equal(ring.get('d', Date.now() + 1_001), undefined, 'past the age, it is not answered');
});
