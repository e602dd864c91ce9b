/**
 * The body parser (src/server/body.ts) reads a body the hit front did not read with fastify's
 * own checks: the answers are compared with a plain fastify app whose `parseAs: 'string'`
 * parser reads the same request (fastify's reader), over a real socket and through inject.
 */
import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import t from 'tap';
import { registerBodyParsers } from '../../src/server/body.ts';

const LIMIT = 64;

/** Our parser, or fastify's reader with JSON parsed the same way; errors as their code and status. */
async function app(ours: boolean): Promise<FastifyInstance> {
  const a = Fastify({ bodyLimit: LIMIT });
  if (ours) registerBodyParsers(a);
  else {
    const json = a.getDefaultJsonParser('error', 'error');
    a.removeAllContentTypeParsers();
    a.addContentTypeParser('*', { parseAs: 'string' }, json);
  }
  a.setErrorHandler((err: Error & { code?: string; statusCode?: number }, _req, reply) =>
    reply.status(err.statusCode ?? 500).send({ code: err.code ?? err.message }),
  );
  a.post('/x', async (req) => ({ body: req.body }));
  await a.listen({ host: '127.0.0.1', port: 0 });
  return a;
}

/** The status line and body of a raw request written to a fresh connection. */
function raw(a: FastifyInstance, text: string, destroyAfterMs?: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect((a.server.address() as net.AddressInfo).port, '127.0.0.1', () => {
      s.write(text);
      if (destroyAfterMs !== undefined) setTimeout(() => s.destroy(), destroyAfterMs);
    });
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (c: string) => (out += c));
    s.on('close', () => resolve(out.replace(/^(HTTP\/1\.1 \d+).*?\r\n\r\n/s, '$1 ')));
    s.on('error', () => {});
    s.setTimeout(2000, () => s.destroy());
  });
}

const chunked = (body: string, end = true) =>
  `POST /x HTTP/1.1\r\nhost: x\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n` +
  `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n${end ? '0\r\n\r\n' : ''}`;

t.test('chunked bodies over a real socket: as fastify reads them', async (t) => {
  const [ours, theirs] = [await app(true), await app(false)];
  t.teardown(() => Promise.all([ours.close(), theirs.close()]));
  const cases: Record<string, string> = {
    'within the limit': chunked('{"a":"∀"}'),
    'past the limit while read': chunked(`{"a":"${'x'.repeat(LIMIT)}"}`),
    'content-length over the limit': `POST /x HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: ${LIMIT + 1}\r\n\r\n`,
  };
  for (const [name, text] of Object.entries(cases)) {
    const [a, b] = [await raw(ours, text), await raw(theirs, text)];
    t.equal(a, b, name);
    t.match(a, /^HTTP\/1\.1 (200|413) /, `${name}: ${a}`);
  }
});

t.test('inject: a Content-Length the body does not match, a stream that fails, an oversized stream', async (t) => {
  const [ours, theirs] = [await app(true), await app(false)];
  t.teardown(() => Promise.all([ours.close(), theirs.close()]));
  const failing = () =>
    new Readable({
      read() {
        this.destroy(new Error('gone'));
      },
    });
  const json = { 'content-type': 'application/json' };
  // Each a function: a stream is read once, by one app.
  const requests = {
    mismatch: () => ({ payload: '{"a":1}', headers: { ...json, 'content-length': '3' } }),
    failing: () => ({ payload: failing(), headers: json }),
    oversized: () => ({
      payload: Readable.from([Buffer.from('{"a":"'), Buffer.alloc(LIMIT, 'x'), Buffer.from('"}')]),
      headers: json,
    }),
  };
  for (const [name, r] of Object.entries(requests)) {
    const a = await ours.inject({ method: 'POST', url: '/x', ...r() });
    const b = await theirs.inject({ method: 'POST', url: '/x', ...r() });
    t.same([a.statusCode, a.json()], [b.statusCode, b.json()], name);
    t.ok(a.statusCode >= 400, `${name}: refused (${a.body})`);
  }
});

t.test('a route with a body limit of its own is refused at registration', async (t) => {
  const a = Fastify({ bodyLimit: LIMIT });
  registerBodyParsers(a);
  t.throws(() => a.post('/y', { bodyLimit: 10 }, async () => ({})), /bodyLimit of its own/);
  a.post('/z', { bodyLimit: LIMIT }, async () => ({}));
  await a.ready();
  await a.close();
});

t.test('a body the hit front did not read is parsed whole from a real request', async (t) => {
  const ours = await app(true);
  t.teardown(() => ours.close());
  const port = (ours.server.address() as net.AddressInfo).port;
  const text = await new Promise<string>((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/x' }, (res) => {
      let s = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (s += c));
      res.on('end', () => resolve(s));
    });
    req.on('error', reject);
    const bytes = Buffer.from('{"a":"∀"}');
    req.write(bytes.subarray(0, 7)); // inside ∀
    setTimeout(() => req.end(bytes.subarray(7)), 20);
  });
  t.same(JSON.parse(text), { body: { a: '∀' } });
});
