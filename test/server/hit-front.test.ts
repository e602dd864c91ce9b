/**
 * The hit front (src/server/hit-front.ts): over real HTTP, a cache hit is answered before fastify
 * with the same status, headers and body as fastify's route answers it, and keeps the request
 * log line, the metrics and shared links; everything else (a miss, a bad key, an unusual
 * request, a body cut short) takes fastify's path, with a body the front already read.
 */
import http from 'node:http';
import net from 'node:net';
import { pino } from 'pino';
import t from 'tap';
import { buildApp } from '../../src/app.ts';
import { HitFront, TOOL_PATH, toolOf } from '../../src/server/hit-front.ts';
import { PLAIN_LAYOUT } from '../../src/log.ts';
import { fakeLaunch } from '../backend/fake.ts';
import { testConfig, testProbe, validRequest } from '../helpers.ts';

const KEY = 'hit-front-key-1';
const BODY = JSON.stringify({ ...validRequest('theorem2sorry'), reparse: false });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Reads a response to its end and resolves with its status, headers and text. */
function collect(res: http.IncomingMessage, resolve: (a: Answer) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (c: string) => (text += c));
  res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
}

function request(
  port: number,
  o: { method?: string; path?: string; body?: string; headers?: Record<string, string>; chunked?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = o.body ?? BODY;
    const req = http.request(
      {
        port,
        host: '127.0.0.1',
        method: o.method ?? 'POST',
        path: o.path ?? '/api/v1/theorem2sorry',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${KEY}`,
          ...(o.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) }),
          ...o.headers,
        },
      },
      (res) => collect(res, resolve),
    );
    req.on('error', reject);
    if (o.chunked) {
      req.write(body.slice(0, 10));
      req.end(body.slice(10));
    } else req.end(body);
  });
}

/**
 * Posts `bytes` to theorem2sorry in two packets, the first ending inside the first `∀`'s three
 * bytes (50 ms apart: two reads on the server).
 */
function sendSplitAtForall(port: number, bytes: Buffer): Promise<Answer> {
  const cut = bytes.indexOf(Buffer.from('∀')) + 1;
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/api/v1/theorem2sorry',
        headers: { authorization: `Bearer ${KEY}`, 'content-length': String(bytes.length) },
      },
      (res) => collect(res, resolve),
    );
    req.on('error', reject);
    req.write(bytes.subarray(0, cut));
    setTimeout(() => req.end(bytes.subarray(cut)), 50);
  });
}

/** A listening daemon whose log lines are captured, and the requests that reached fastify's handlers. */
async function daemon(t: { teardown(fn: () => unknown): void }) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) },
  );
  (logger as unknown as Record<symbol, unknown>)[PLAIN_LAYOUT] = true;
  const app = await buildApp({
    logger,
    probe: testProbe,
    launch: () => fakeLaunch(),
    config: testConfig({ keys: [{ key: KEY }] }),
  });
  const handled: string[] = [];
  /** The raw body text each request fastify handled kept (src/server/body.ts). */
  const raws: string[] = [];
  app.addHook('preHandler', async (request) => {
    handled.push(request.url);
    raws.push((request as unknown as { rawBody: string }).rawBody);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => app.close());
  const port = (app.server.address() as net.AddressInfo).port;
  const requestLines = () => lines.filter((l) => l.msg === 'request');
  return { app, port, handled, raws, requestLines };
}

t.test('a hit is answered before fastify, as fastify answers it', async (t) => {
  const { app, port, handled, requestLines } = await daemon(t);
  const miss = await request(port);
  t.equal(miss.status, 200, miss.body);
  t.equal(miss.headers['x-cache'], 'miss');
  t.equal(handled.length, 1, 'the miss went through fastify');

  const hit = await request(port);
  t.equal(hit.status, 200);
  t.equal(handled.length, 1, 'the hit did not reach fastify');
  // fastify's own hit path (inject does not pass through the server), for comparison.
  const viaFastify = await app.inject({
    method: 'POST',
    url: '/api/v1/theorem2sorry',
    payload: BODY,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
  });
  t.equal(viaFastify.headers['x-cache'], 'hit');
  const pick = (h: Record<string, unknown>) => ({
    'x-cache': h['x-cache'],
    'content-type': h['content-type'],
    'content-length': h['content-length'],
  });
  t.same(pick(hit.headers), pick(viaFastify.headers), 'same headers');
  const ours = JSON.parse(hit.body) as { info: { request_id: string } };
  const theirs = viaFastify.json() as { info: { request_id: string } };
  t.not(ours.info.request_id, theirs.info.request_id, 'each its own request id');
  t.same({ ...ours, info: 0 }, { ...theirs, info: 0 }, 'same body otherwise');
  // The provenance (AXLE's `_executor_*`) was stored with the entry: both hits answer the miss's.
  const provenance = (a: { info: object }) => ({ ...a.info, request_id: 0 });
  const first = JSON.parse(miss.body) as { info: { request_id: string; _executor_lean_toolchain?: string } };
  t.equal(first.info._executor_lean_toolchain, 'leanprover/lean4:v4.28.0', 'the miss names the toolchain');
  t.same(provenance(ours), provenance(first), "the front's hit: the miss's provenance");
  t.same(provenance(theirs), provenance(first), "fastify's hit: the miss's provenance");
  t.same(Object.keys(ours.info), Object.keys(first.info), 'in the same order, request_id last');
  // Every header fastify sends, in its order (the CORS headers first: its onRequest hook sets them;
  // inject has no connection of its own).
  const names = (h: Record<string, unknown>) =>
    Object.keys(h).filter((k) => !['date', 'connection', 'keep-alive'].includes(k));
  t.same(names(hit.headers), names(viaFastify.headers), 'in fastify’s order');

  // The log lines: the same members in the same order, distinct reqIds.
  const [, frontLine, fastifyLine] = requestLines();
  t.ok(frontLine && fastifyLine, 'one line per request');
  t.same(Object.keys(frontLine!), Object.keys(fastifyLine!), 'same members in the same order');
  const strip = (l: Record<string, unknown>) => ({ ...l, time: 0, reqId: 0, requestId: 0, totalMs: 0 });
  t.same(strip(frontLine!), strip(fastifyLine!), 'same values');
  t.equal(frontLine!.requestId, ours.info.request_id);
  t.not(frontLine!.reqId, fastifyLine!.reqId, 'reqIds from one counter');

  // Metrics: both hits counted.
  const metrics = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${KEY}` } });
  t.match(metrics.body, /lean_tool_requests_total\{tool="theorem2sorry",status="200"\} 3/);
  t.match(metrics.body, /cache="hit"\} 2/);

  // Shared links: the front's hit can be shared and read back with its request id.
  const share = await app.inject({
    method: 'POST',
    url: '/v1/shared-links',
    payload: { request_id: ours.info.request_id },
    headers: { authorization: `Bearer ${KEY}` },
  });
  t.equal(share.statusCode, 201, share.body);
  const link = await app.inject({ url: `/v1/shared-links/${ours.info.request_id}` });
  t.same(link.json().result, ours, 'the link answers what was sent');
  t.same(link.json().inputs, JSON.parse(BODY));
});

t.test('what the front does not answer goes to fastify, body and all', async (t) => {
  const { port, handled } = await daemon(t);
  t.equal((await request(port)).headers['x-cache'], 'miss');
  const bad = await request(port, { headers: { authorization: 'Bearer not-a-key' } });
  t.equal(bad.status, 401, 'a bad key: the envelope');
  t.equal((JSON.parse(bad.body) as { error: { code: string } }).error.code, 'unauthorized');
  t.notOk(bad.headers['x-cache']);

  const before = handled.length;
  const cases = [
    { path: '/api/v1/theorem2sorry?x=1' },
    { chunked: true },
    { headers: { 'content-type': 'application/json; charset=latin1' } },
    { path: '/v1/axle/theorem2sorry' },
  ];
  for (const c of cases) {
    const r = await request(port, c);
    t.equal(r.status, 200, JSON.stringify(c));
    t.equal(r.headers['x-cache'], 'hit', `${JSON.stringify(c)}: answered from the cache`);
  }
  t.equal(handled.length - before, 3, 'all but the earlier path form reached fastify');

  const other = await request(port, { body: BODY.replace('foo', 'bar') });
  t.equal(other.headers['x-cache'], 'miss', 'a different body is read by fastify from what the front kept');
  t.equal(JSON.parse(other.body).content.includes('bar'), true);
  const empty = await request(port, { body: '{' });
  t.equal(empty.status, 400, 'malformed JSON: the envelope');
});

t.test('repeats of a known body and a body in two packets are hits, each with its own id', async (t) => {
  const { app, port, handled } = await daemon(t);
  t.equal((await request(port)).headers['x-cache'], 'miss');
  const ids = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const r = await request(port);
    t.equal(r.headers['x-cache'], 'hit');
    ids.add((JSON.parse(r.body) as { info: { request_id: string } }).info.request_id);
  }
  t.equal(ids.size, 3, 'a fresh request id each time');
  // The body's second half arrives later: read as it comes, then answered by the front.
  const split = await new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/api/v1/theorem2sorry',
        headers: { authorization: `Bearer ${KEY}`, 'content-length': String(Buffer.byteLength(BODY)) },
      },
      (res) => collect(res, resolve),
    );
    req.on('error', reject);
    req.write(BODY.slice(0, 20));
    setTimeout(() => req.end(BODY.slice(20)), 50);
  });
  t.equal(split.headers['x-cache'], 'hit');
  t.equal(handled.length, 1, 'only the miss reached fastify');
  const id = (JSON.parse(split.body) as { info: { request_id: string } }).info.request_id;
  const share = await app.inject({
    method: 'POST',
    url: '/v1/shared-links',
    payload: { request_id: id },
    headers: { authorization: `Bearer ${KEY}` },
  });
  t.equal(share.statusCode, 201, share.body);
  const link = await app.inject({ url: `/v1/shared-links/${id}` });
  t.same(link.json().inputs, JSON.parse(BODY), 'its inputs as sent');
});

t.test('pipelined hits on one connection are each answered whole', async (t) => {
  const { port } = await daemon(t);
  t.equal((await request(port)).headers['x-cache'], 'miss');
  const head =
    `POST /api/v1/theorem2sorry HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
    `authorization: Bearer ${KEY}\r\ncontent-length: ${Buffer.byteLength(BODY)}\r\n\r\n`;
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.setEncoding('utf8');
  const three = new Promise<void>((resolve) =>
    socket.on('data', (c: string) => {
      text += c;
      if ((text.match(/"request_id":"[^"]+"\}\}/g) ?? []).length === 3) resolve();
    }),
  );
  socket.write(head + BODY + head + BODY + head + BODY);
  await three;
  socket.destroy();
  const answers = text.split(/(?=HTTP\/1\.1 )/);
  t.equal(answers.length, 3);
  for (const a of answers) {
    t.match(a, /^HTTP\/1\.1 200 /);
    t.match(a, /x-cache: hit/);
    const length = Number(/content-length: (\d+)/.exec(a)![1]);
    const body = a.slice(a.indexOf('\r\n\r\n') + 4);
    t.equal(Buffer.byteLength(body), length, 'the body is as long as its header says');
    t.match(JSON.parse(body), { info: { request_id: /^[0-9a-f-]{36}$/ } });
  }
});

t.test('a client gone mid-body ends nothing', async (t) => {
  const { port } = await daemon(t);
  await new Promise<void>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(`POST /api/v1/theorem2sorry HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n{"content":`);
      setTimeout(() => s.destroy(), 50);
    });
    s.on('close', () => resolve());
    s.on('error', () => {});
  });
  const r = await request(port);
  t.equal(r.status, 200, 'the daemon still answers');
});

t.test('while shutting down a hit gets the 503 envelope, not the cached bytes', async (t) => {
  const { app, port } = await daemon(t);
  t.equal((await request(port)).headers['x-cache'], 'miss');
  t.equal((await request(port)).headers['x-cache'], 'hit');
  // A request whose body is still arriving when close begins (an idle connection would be closed).
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const half = Math.floor(BODY.length / 2);
  socket.write(
    `POST /api/v1/theorem2sorry HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
      `authorization: Bearer ${KEY}\r\ncontent-length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY.slice(0, half)}`,
  );
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (text += c));
  const ended = new Promise((resolve) => socket.once('close', resolve));
  await new Promise((r) => setTimeout(r, 50));
  const closed = app.close();
  await new Promise((r) => setTimeout(r, 50));
  socket.end(BODY.slice(half));
  await ended;
  await closed;
  t.match(text, /^HTTP\/1\.1 503 /, text.slice(0, 200));
  t.match(text, /"code":"overloaded"/);
  // (x-cache named in access-control-expose-headers is no answer header of its own.)
  t.notMatch(text, /^x-cache:/im, 'no cached bytes');
});

t.test('a miss is parsed from the bytes the front read: a character split across packets stays whole', async (t) => {
  const { port, handled } = await daemon(t);
  const body = BODY.replace('foo', 'f∀o');
  t.not(body, BODY, 'the body names ∀');
  const bytes = Buffer.from(body);
  const send = () => sendSplitAtForall(port, bytes);
  const miss = await send();
  t.equal(miss.status, 200, miss.body);
  t.equal(miss.headers['x-cache'], 'miss');
  t.ok((JSON.parse(miss.body) as { content: string }).content.includes('f∀o'), 'decoded whole');
  t.equal(handled.length, 1, 'the miss went through fastify');
  const hit = await send();
  t.equal(hit.headers['x-cache'], 'hit', 'the same bytes: found by the lookup the front made');
  t.equal(handled.length, 1);
});

t.test(
  'a request handed to fastify is handed over once, even when fastify throws from inside the hand-off',
  async (t) => {
    const front = new HitFront();
    const failed: unknown[] = [];
    front.serve({
      bodyLimit: 1 << 20,
      cacheStatus: true,
      cache: { rawKey: () => 'k' as never, getRaw: () => undefined },
      identify: () => ({ id: 'a', keyClass: 'anonymous' }) as never,
      reqId: () => 'req-1',
      answered: () => {},
      failed: (e) => failed.push(e),
    });
    let handed = 0;
    const server = front.serverFactory((_req, res) => {
      handed++;
      // As a miss running in fastify up to its first await could: a throw, the answer later.
      setImmediate(() => res.end('{}'));
      throw new Error('thrown inside the hand-off');
    }, {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => server.close());
    const r = await request((server.address() as net.AddressInfo).port, { path: '/api/v1/check' });
    t.equal(r.status, 200);
    t.equal(handed, 1, 'handed over once');
    t.equal(failed.length, 1, 'the error reported');
    t.match(failed[0], { message: 'thrown inside the hand-off' });
  },
);

t.test('a miss whose body came in pieces reaches the tool whole (a character split between them)', async (t) => {
  const { port, handled } = await daemon(t);
  const content = 'theorem «∀-split» : True := by\n  trivial\n';
  const body = JSON.stringify({ ...validRequest('theorem2sorry'), content, reparse: false });
  const bytes = Buffer.from(body);
  const answer = await sendSplitAtForall(port, bytes);
  t.equal(answer.status, 200, answer.body);
  t.equal(answer.headers['x-cache'], 'miss');
  t.equal(handled.length, 1, 'fastify ran it');
  t.match((JSON.parse(answer.body) as { content: string }).content, '«∀-split»', 'the content as sent');
});

t.test('an ASCII miss is parsed from the text its raw key holds: the body as sent, then a hit', async (t) => {
  const { port, handled, raws } = await daemon(t);
  const content = 'theorem ascii_only : 2 + 2 = 4 := by\n  norm_num\n';
  const body = JSON.stringify({ ...validRequest('theorem2sorry'), content, reparse: false });
  const miss = await request(port, { body });
  t.equal(miss.status, 200, miss.body);
  t.equal(miss.headers['x-cache'], 'miss');
  t.same(raws, [body], 'the raw body kept is the body sent');
  t.match((JSON.parse(miss.body) as { content: string }).content, 'theorem ascii_only', 'the content as sent');
  const hit = await request(port, { body });
  t.equal(hit.headers['x-cache'], 'hit');
  t.equal(handled.length, 1, 'only the miss went through fastify');
});

t.test("a tool path's tool is read as the path pattern reads it", async (t) => {
  const urls = [
    '/api/v1/check',
    '/api/v1/theorem2sorry',
    '/api/v1/extract_decls',
    '/api/v1/',
    '/api/v1',
    '/api/v1/Check',
    '/api/v1/check?x=1',
    '/api/v1/check/',
    '/api/v1/a/b',
    '/api/v1/ch%65ck',
    '/api/v1/chéck',
    '/api/v1/check-x',
    '/api/v2/check',
    '/v1/axle/check',
    '/v1/a.b-c_d/verify_proof',
    '/v1/axle/',
    '/v1/check',
    '//api/v1/check',
  ];
  for (const u of urls) t.equal(toolOf(u), TOOL_PATH.exec(u)?.[1], u);
});
