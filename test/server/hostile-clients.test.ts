/**
 * Clients that try to stall or bloat the daemon: a WebSocket reader that never reads, stalled
 * half-sent bodies, malformed HTTP, a cancel in the same read as its request, requests on an
 * open connection during shutdown. Sizes are smaller than the issue's manual runs to keep the
 * suite fast (the figures of the full-size runs are in README "Timeouts and backpressure").
 */
import net from 'node:net';
import t from 'tap';
import WebSocket from 'ws';
import { checkResult, makeApp, sleep, TEST_ENV, testConfig } from '../helpers.ts';

const checkTool = (delayMs = 0) => ({
  check: {
    needsLean: () => false,
    run: async (req: { content: string }) => {
      if (delayMs) await sleep(delayMs);
      return checkResult(req.content);
    },
  },
});

async function listen(app: Awaited<ReturnType<typeof makeApp>>): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as net.AddressInfo).port;
}

/** Send raw bytes and collect the whole reply until the server closes. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(data));
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
  });
}

t.test(
  'a WebSocket client that never reads: the daemon stops reading it and its send buffer stays bounded',
  async (t) => {
    // Small requests, large results (1 MiB each): what the daemon would buffer for a non-reader.
    const result = `-- ${'x'.repeat(1024 * 1024)}`;
    const hardLimit = 4 * 1024 * 1024;
    const app = await makeApp({
      tools: {
        check: {
          needsLean: () => false,
          run: async () => checkResult(result),
        },
      },
      config: testConfig({
        admission: { anonymousConcurrency: 64, anonymousQueueLimit: 1000 },
        server: { stream: { sendBudgetBytes: 512 * 1024, sendHardLimitBytes: hardLimit } },
      }),
    });
    t.teardown(() => app.close());
    const port = await listen(app);
    // The daemon's side of the upgraded connection: what it has queued for the client.
    const serverSockets: net.Socket[] = [];
    app.server.on('upgrade', (_req, socket: net.Socket) => serverSockets.push(socket));
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    // Stop reading at the TCP level: results pile up in the daemon's send buffer.
    (ws as unknown as { _socket: net.Socket })._socket.pause();
    let maxBuffered = 0;
    const sample = setInterval(() => {
      for (const sock of serverSockets) maxBuffered = Math.max(maxBuffered, sock.writableLength);
    }, 5);
    // 500 requests would be 500 MiB of results if the daemon buffered without limit.
    for (let i = 0; i < 500 && ws.readyState === ws.OPEN; i++) {
      ws.send(JSON.stringify({ id: String(i), tool: 'check', request: { content: `x${i}`, environment: TEST_ENV } }));
    }
    // Either the daemon stopped reading (paused at the budget) or it closed the socket (4008) once
    // results already in flight passed the hard limit; both bound what it holds for this client.
    const code = await Promise.race([closed, sleep(5_000).then(() => -1)]);
    clearInterval(sample);
    t.ok(code === -1 || code === 4008, `socket ${code === -1 ? 'paused, still open' : `closed with ${code}`}`);
    t.ok(
      maxBuffered <= hardLimit + 2 * 1024 * 1024,
      `largest send buffer ${(maxBuffered / 2 ** 20).toFixed(1)} MiB (hard limit 4 MiB; 500 MiB were asked for)`,
    );
    ws.terminate();
  },
);

t.test('stalled half-sent bodies are answered 408 in the envelope and closed by the body timeout', async (t) => {
  const app = await makeApp({
    tools: checkTool(),
    config: testConfig({ server: { requestTimeoutMs: 500, headersTimeoutMs: 500, timeoutCheckIntervalMs: 100 } }),
  });
  t.teardown(() => app.close());
  const port = await listen(app);
  const N = 50;
  const replies = await Promise.all(
    Array.from({ length: N }, () =>
      raw(
        port,
        `POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"content": "${'y'.repeat(10_000)}`,
      ),
    ),
  );
  // Every connection was closed by the daemon (raw resolves on close, and the client never ends them):
  // the outcome asserted, not the time it took (a loaded machine fires the body timeout late).
  const statuses = replies.map((r) => r.split('\r\n')[0]);
  t.equal(statuses.filter((s) => s === 'HTTP/1.1 408 Request Timeout').length, N, 'each got a 408');
  t.match(JSON.parse(replies[0]!.split('\r\n\r\n')[1]!), { error: { code: 'request_timeout' } });
});

t.test('errors from the HTTP parser and router use the envelope and echo at most a short prefix', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const port = await listen(app);
  const big = await raw(port, `GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.match(big, /^HTTP\/1\.1 431 /);
  t.match(JSON.parse(big.split('\r\n\r\n')[1]!), { error: { code: 'headers_too_large' } });
  const garbage = await raw(port, 'NOT HTTP AT ALL\r\n\r\n');
  t.match(garbage, /^HTTP\/1\.1 400 /);
  t.match(JSON.parse(garbage.split('\r\n\r\n')[1]!), { error: { code: 'bad_request' } });
  const longPath = await app.inject({ method: 'GET', url: `/nothing/${'p'.repeat(10_000)}` });
  t.equal(longPath.statusCode, 404);
  t.ok(longPath.body.length < 500, `404 body is ${longPath.body.length} bytes for a 10 KB URL`);
  const longEnv = await app.inject({
    method: 'POST',
    url: '/api/v1/check',
    payload: { content: 'x', environment: 'e'.repeat(1_000_000) },
  });
  t.equal(longEnv.statusCode, 404);
  t.ok(longEnv.body.length < 1_000, `unknown environment body is ${longEnv.body.length} bytes for a 1 MB name`);
  const badUrl = await app.inject({ method: 'POST', url: '/api/v1/%E0%A4%A' });
  t.equal(badUrl.json().error !== undefined, true, 'a bad URL encoding answers in the envelope');
});

t.test('__proto__ keys: malformed JSON over HTTP and WebSocket alike', async (t) => {
  const app = await makeApp({ tools: checkTool() });
  t.teardown(() => app.close());
  const port = await listen(app);
  const body = '{"content": "x", "environment": "lean-test", "__proto__": {"polluted": true}}';
  const http = await app.inject({
    method: 'POST',
    url: '/api/v1/check',
    headers: { 'content-type': 'application/json' },
    payload: body,
  });
  t.equal(http.statusCode, 400);
  t.equal(http.json().error.code, 'malformed_json');
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`);
  await new Promise((r) => ws.once('open', r));
  ws.send(`{"id": "p", "tool": "check", "request": ${body}}`);
  const reply = await new Promise<{ event: string; error?: { code: string } }>((r) =>
    ws.once('message', (d) => r(JSON.parse(String(d)))),
  );
  t.equal(reply.event, 'error');
  t.equal(reply.error?.code, 'malformed_json');
  ws.close();
});

t.test('a cancel in the same read as its request stops the job before it starts', async (t) => {
  let runs = 0;
  const app = await makeApp({
    tools: {
      check: {
        ...checkTool(50).check,
        run: async (req: { content: string }) => {
          runs++;
          return checkTool().check.run(req);
        },
      },
    },
  });
  t.teardown(() => app.close());
  const port = await listen(app);
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`);
  await new Promise((r) => ws.once('open', r));
  const events: { id: string; event: string; error?: { code: string } }[] = [];
  ws.on('message', (d) => events.push(JSON.parse(String(d))));
  const N = 50;
  // One write holding both frames: the daemon reads them in the same chunk.
  const sock = (ws as unknown as { _socket: net.Socket })._socket;
  sock.cork();
  for (let i = 0; i < N; i++) {
    ws.send(JSON.stringify({ id: `c${i}`, tool: 'check', request: { content: `x${i}`, environment: TEST_ENV } }));
    ws.send(JSON.stringify({ id: `c${i}`, cancel: true }));
  }
  sock.uncork();
  for (let i = 0; i < 200 && events.filter((e) => e.event === 'error' || e.event === 'result').length < N; i++)
    await sleep(20);
  t.equal(
    events.filter((e) => e.event === 'error' && e.error?.code === 'cancelled').length,
    N,
    'every pair answered cancelled',
  );
  t.equal(runs, 0, 'no job ran');
  ws.close();
});

t.test('after close begins, a busy keep-alive connection finishes its request and ends cleanly', async (t) => {
  let running = false;
  const slow = checkTool(300).check;
  const tools = {
    check: {
      ...slow,
      run: (req: { content: string }) => {
        running = true;
        return slow.run(req);
      },
    },
  };
  const app = await makeApp({ tools });
  const port = await listen(app);
  // One socket, kept alive: a first request, then close begins, then a second request on it.
  const s = net.connect(port, '127.0.0.1');
  await new Promise((r) => s.once('connect', r));
  let out = '';
  s.on('data', (d) => (out += d));
  const req = (content: string) => {
    const body = JSON.stringify({ content, environment: TEST_ENV });
    s.write(
      `POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  };
  req('first');
  // Close begins while the first request runs (an idle keep-alive connection would be closed by
  // Node at once; a busy one stays open and answers what follows with the 503 envelope): once the
  // tool has started, not after a fixed pause, which a loaded machine could spend before the request arrives.
  for (let i = 0; i < 2000 && !running; i++) await sleep(5);
  const closing = app.close();
  await sleep(20);
  req('second');
  const ended = await Promise.race([
    new Promise<boolean>((r) => s.once('end', () => r(true))),
    sleep(3_000).then(() => false),
  ]);
  t.ok(ended, 'the server ended the connection cleanly');
  // The in-flight request completes with `connection: close`; the connection then ends cleanly
  // (a FIN, not a reset), so the client never sees a connection error.
  t.match(out, /^HTTP\/1\.1 200 OK[\s\S]*connection: close/i, 'the in-flight request finished');
  t.notMatch(out, /HTTP\/1\.1 5\d\d (?!Service Unavailable)/, 'no other failure');
  s.destroy();
  await closing;
});
