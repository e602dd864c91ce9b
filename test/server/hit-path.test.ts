/**
 * The cache-hit fast path (src/server/hit-path.ts): a byte-identical repeat is answered from
 * the raw-body lookup without its JSON being parsed, only after the caller is authorized, and
 * a per-request member can be spliced into a stored body without parsing it.
 */
import t from 'tap';
import { buildApp } from '../../src/app.ts';
import { UNPARSED_HIT } from '../../src/server/body.ts';
import { withMembers } from '../../src/server/hit-path.ts';
import { fakeLaunch } from '../backend/fake.ts';
import { testConfig, testProbe, validRequest } from '../helpers.ts';

const KEY = 'hit-path-key-1';

async function appWithBodies() {
  const app = await buildApp({
    logger: false,
    probe: testProbe,
    launch: () => fakeLaunch(),
    config: testConfig({ keys: [{ key: KEY }] }),
  });
  const bodies: unknown[] = [];
  app.addHook('preHandler', async (request) => {
    bodies.push(request.body);
  });
  await app.ready();
  return { app, bodies };
}

const post = (payload: string, authorization = `Bearer ${KEY}`) => ({
  method: 'POST' as const,
  url: '/api/v1/theorem2sorry',
  payload,
  headers: { 'content-type': 'application/json', authorization },
});

t.test('a byte-identical repeat is a hit whose body was never parsed', async (t) => {
  const { app, bodies } = await appWithBodies();
  t.teardown(() => app.close());
  const body = JSON.stringify({ ...validRequest('theorem2sorry'), reparse: false });
  const first = await app.inject(post(body));
  t.equal(first.statusCode, 200, first.body);
  t.equal(first.headers['x-cache'], 'miss');
  const second = await app.inject(post(body));
  t.equal(second.headers['x-cache'], 'hit');
  t.same(second.json().content, first.json().content, 'the same result');
  t.not(bodies[0], UNPARSED_HIT, 'the miss was parsed');
  t.equal(bodies[1], UNPARSED_HIT, 'the hit was answered from the raw bytes, unparsed');

  // Same request, other bytes (a space): parsed and validated, then answered from the cache by its key.
  const spaced = await app.inject(post(`${body} `));
  t.equal(spaced.headers['x-cache'], 'hit');
  t.not(bodies[2], UNPARSED_HIT, 'different bytes are parsed');
});

t.test('a raw hit is not served to a caller that fails authorization', async (t) => {
  const { app } = await appWithBodies();
  t.teardown(() => app.close());
  const body = JSON.stringify({ ...validRequest('theorem2sorry'), reparse: false });
  t.equal((await app.inject(post(body))).statusCode, 200);
  const bad = await app.inject(post(body, 'Bearer not-a-key'));
  t.equal(bad.statusCode, 401);
  t.equal(bad.json().error.code, 'unauthorized');
  t.notOk(bad.headers['x-cache'], 'no cached bytes');
});

t.test('withMembers splices members before the closing brace', async (t) => {
  const stored = Buffer.from(JSON.stringify({ content: 'x}', timings: { total_ms: 0 } }));
  const out = withMembers(stored, '"info":{"request_id":"0f8c"}');
  t.same(JSON.parse(out.toString()), { content: 'x}', timings: { total_ms: 0 }, info: { request_id: '0f8c' } });
  t.equal(
    stored.toString(),
    JSON.stringify({ content: 'x}', timings: { total_ms: 0 } }),
    'the stored bytes are untouched',
  );
});
