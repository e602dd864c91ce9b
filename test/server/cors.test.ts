/**
 * CORS as AXLE serves it since v1.4.0: a preflight is 204 with `Access-Control-Allow-*`, and responses
 * carry `Access-Control-Allow-Origin`, on fastify's path (errors included) and on the hit front's (a
 * cache hit answered before fastify, src/server/hit-front.ts).
 */
import net from 'node:net';
import t from 'tap';
import { buildApp } from '../../src/app.ts';
import { corsPolicy } from '../../src/server/cors.ts';
import { fakeLaunch } from '../backend/fake.ts';
import { makeApp, testConfig, testProbe, validRequest } from '../helpers.ts';

const ORIGIN = 'https://page.example';
const BODY = JSON.stringify({ ...validRequest('theorem2sorry'), reparse: false });

t.test('the default (any origin): preflight 204, and every answer carries the origin header', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const pre = await app.inject({
    method: 'OPTIONS',
    url: '/api/v1/check',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, authorization',
    },
  });
  t.equal(pre.statusCode, 204);
  t.equal(pre.headers['access-control-allow-origin'], '*');
  t.match(pre.headers['access-control-allow-methods'], /\bPOST\b/);
  t.equal(pre.headers['access-control-allow-headers'], 'content-type, authorization');
  t.ok(Number(pre.headers['access-control-max-age']) > 0);
  t.equal(pre.body, '');

  const ok = await app.inject({
    method: 'POST',
    url: '/api/v1/theorem2sorry',
    payload: BODY,
    headers: { origin: ORIGIN },
  });
  t.equal(ok.statusCode, 200);
  t.equal(ok.headers['access-control-allow-origin'], '*');
  t.match(ok.headers['access-control-expose-headers'], /x-error-code/);
  const bad = await app.inject({
    method: 'POST',
    url: '/api/v1/check',
    payload: '{"content": 1}',
    headers: { origin: ORIGIN },
  });
  t.equal(bad.statusCode, 400);
  t.equal(bad.headers['access-control-allow-origin'], '*', 'an error answer too');
  const notFound = await app.inject({ method: 'GET', url: '/nope', headers: { origin: ORIGIN } });
  t.equal(notFound.headers['access-control-allow-origin'], '*', 'a 404 too');
  const plain = await app.inject({ method: 'OPTIONS', url: '/api/v1/check' });
  t.not(plain.statusCode, 204, 'an OPTIONS that is no preflight is not answered as one');
});

t.test('an origin list: listed origins echoed with Vary; others get no Allow-Origin', async (t) => {
  const app = await makeApp({ config: testConfig({ server: { cacheStatus: true, corsOrigins: [ORIGIN] } }) });
  t.teardown(() => app.close());
  const preflight = (origin: string) =>
    app.inject({
      method: 'OPTIONS',
      url: '/api/v1/check',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
  const yes = await preflight(ORIGIN);
  t.equal(yes.statusCode, 204);
  t.equal(yes.headers['access-control-allow-origin'], ORIGIN);
  t.equal(yes.headers.vary, 'Origin');
  const no = await preflight('https://other.example');
  t.equal(no.statusCode, 204);
  t.equal(no.headers['access-control-allow-origin'], undefined, 'the browser refuses it');
  t.equal(no.headers['access-control-allow-methods'], undefined);
  const get = await app.inject({ method: 'GET', url: '/v1/status', headers: { origin: 'https://other.example' } });
  t.equal(get.headers['access-control-allow-origin'], undefined);
  t.equal(get.headers.vary, 'Origin');
  t.same(corsPolicy([]).allowOrigin(ORIGIN), undefined, '[] allows none');
});

t.test('CORS off ([]): no headers, OPTIONS is not answered 204', async (t) => {
  const app = await makeApp({ config: testConfig({ server: { cacheStatus: true, corsOrigins: [] } }) });
  t.teardown(() => app.close());
  const pre = await app.inject({
    method: 'OPTIONS',
    url: '/api/v1/check',
    headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
  });
  t.not(pre.statusCode, 204);
  t.equal(pre.headers['access-control-allow-origin'], undefined);
});

t.test('a cache hit answered by the hit front carries the same CORS headers as fastify sets', async (t) => {
  for (const corsOrigins of [['*'], [ORIGIN]]) {
    const app = await buildApp({
      logger: false,
      probe: testProbe,
      launch: () => fakeLaunch(),
      config: testConfig({ server: { cacheStatus: true, corsOrigins } }),
    });
    const handled: string[] = [];
    app.addHook('preHandler', async (request) => void handled.push(request.url));
    await app.listen({ host: '127.0.0.1', port: 0 });
    t.teardown(() => app.close());
    const port = (app.server.address() as net.AddressInfo).port;
    const post = () =>
      fetch(`http://127.0.0.1:${port}/api/v1/theorem2sorry`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body: BODY,
      });
    const miss = await post();
    t.equal(miss.headers.get('x-cache'), 'miss');
    const hit = await post();
    t.equal(hit.headers.get('x-cache'), 'hit');
    t.equal(handled.length, 1, 'the hit was answered by the front, not fastify');
    for (const h of ['access-control-allow-origin', 'access-control-expose-headers', 'vary'])
      t.equal(hit.headers.get(h), miss.headers.get(h), `${corsOrigins[0]}: ${h} as fastify's`);
    t.equal(hit.headers.get('access-control-allow-origin'), corsOrigins[0] === '*' ? '*' : ORIGIN);
  }
});
