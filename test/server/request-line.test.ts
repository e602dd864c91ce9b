/**
 * The request log line written from pino's fragments (src/server/request-line.ts,
 * request-log.ts) says what pino's own `child({ reqId }).info(fields, msg)` says, byte for byte, and the daemon's buffered destination
 * (LineBuffer, src/log.ts) writes every line, in order, through partial writes and at exit.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { PLAIN_LAYOUT } from '../../src/log.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { epochText, infoTextWriter, jsonChars } from '../../src/server/request-line.ts';
import { num, requestFields, requestLine } from '../../src/server/request-log.ts';
import { TS_LOADER } from '../ts-loader.ts';

/** A pino logger with the daemon's layout, writing into `lines`. */
function capture(lines: string[]) {
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(s) });
  (logger as unknown as Record<symbol, unknown>)[PLAIN_LAYOUT] = true;
  return logger;
}

/** What the onResponse hook reads of a request and its reply. */
function answered(svc: Record<string, unknown> | null, o: { url?: string; caller?: { keyClass: string } } = {}) {
  const request = { id: 'req-7', method: 'POST', url: o.url ?? '/api/v1/check', svc, caller: o.caller };
  return [request, { statusCode: 200, elapsedTime: 3.4 }] as unknown as [FastifyRequest, FastifyReply];
}

t.test('the template line and pino agree, member for member', async (t) => {
  const cases = {
    'a miss': answered(
      { tool: 'check', requestId: 'a-b', environment: 'bench', queueMs: 0, cache: 'miss' },
      { caller: { keyClass: 'user' } },
    ),
    'strings to escape, members left out': answered(
      // No lone surrogate here: pino writes one raw, JSON.stringify (the line's rule before) escapes it.
      { tool: 'che"ck\u{1F600}', queueMs: Number.NaN },
      { url: '/api/v1/che"ck?x=\\\u0001é\u2028' },
    ),
    'no tool request': answered(null, { url: '/v1/status' }),
  };
  for (const [name, [request, reply]] of Object.entries(cases)) {
    const lines: string[] = [];
    const logger = capture(lines);
    infoTextWriter(logger)!(requestLine(request, reply));
    // pino's own writing of the members, as the hook gives them to a logger of another layout.
    logger.child({ reqId: request.id }).info(requestFields(request, reply), 'request');
    t.equal(lines.length, 2);
    // The clock moves between the two lines; everything else is the same text.
    const [ours, theirs] = lines.map((l) => l.replace(/"time":\d+/, '"time":0'));
    t.equal(ours, theirs, name);
    t.ok(lines[0]!.endsWith('}\n'), 'one line');
  }
});

t.test("the template line's time is the clock's, as pino's epochTime writes it", async (t) => {
  const lines: string[] = [];
  const write = infoTextWriter(capture(lines))!;
  for (let i = 0; i < 3; i++) {
    const before = Date.now();
    write(',"msg":"x"}');
    const after = Date.now();
    const time = Number(/^\{"level":30,"time":(\d+),/.exec(lines[i]!)?.[1]);
    t.ok(time >= before && time <= after, `line ${i}: ${time} within [${before}, ${after}]`);
    // The next line in a later millisecond gets a new stamp, not the remembered one.
    while (Date.now() === after);
  }
  const other = pino(
    { level: 'info', timestamp: () => ',"time":"custom"' },
    { write: (x: string) => void lines.push(x) },
  );
  (other as unknown as Record<symbol, unknown>)[PLAIN_LAYOUT] = true;
  infoTextWriter(other)!(',"msg":"x"}');
  t.match(lines.at(-1), /"time":"custom"/, "a logger's own timestamp function is kept");
});

t.test("epochText: an epoch's text, its second's digits and its millisecond's", async (t) => {
  const now = Date.now();
  const second = now - (now % 1000);
  for (const ms of [1000, 1001, 1999, 2000, 2010, 2100, now, second, second + 1, second + 999, second + 1000, 8.64e15])
    t.equal(epochText(ms), `,"time":${ms}`, String(ms));
});

t.test('a logger of another layout gets no template writer', async (t) => {
  t.equal(infoTextWriter(pino({ level: 'info' })), undefined);
});

t.test('jsonChars: the string itself unless JSON.stringify escapes something', async (t) => {
  const plain = 'req-1a/api/v1_check.x';
  t.equal(jsonChars(plain), plain);
  const cases = ['a"b', 'a\\b', '\u0000', '\u001f', '\ud800', '\udc00x', '\u{1F600}', 'é\u2028'];
  // Named by index: a lone surrogate in a test's name does not survive TAP's output.
  cases.forEach((s, i) => t.equal(`"${jsonChars(s)}"`, JSON.stringify(s), `case ${i}`));
});

t.test("num: a number's JSON text, the small integers' made once", async (t) => {
  for (const n of [0, -0, 1, 200, 1023, 1024, 1.5, 0.1, -1, -0.5, 1e21, 2 ** 53, NaN, Infinity, -Infinity])
    t.equal(num(n), JSON.stringify(n), String(n));
});

t.test('LineBuffer: every line, in order, written at exit without a flush', async (t) => {
  const script = `
    import { createLogger } from ${JSON.stringify(path.resolve(import.meta.dirname, '../../src/log.ts'))};
    const log = createLogger('info');
    for (let i = 0; i < 5000; i++) log.info({ i }, 'line');
  `;
  const r = spawnSync(process.execPath, [...TS_LOADER, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  t.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  t.equal(lines.length, 5000, 'no line lost (the last ones were written at exit)');
  t.same(
    lines.map((l) => (JSON.parse(l) as { i: number }).i),
    Array.from({ length: 5000 }, (_, i) => i),
    'in order',
  );
});

t.test('LineBuffer: chunks of many-byte characters and a line longer than a chunk, intact and in order', async (t) => {
  const script = `
    import { createLogger } from ${JSON.stringify(path.resolve(import.meta.dirname, '../../src/log.ts'))};
    const log = createLogger('info');
    for (let i = 0; i < 3000; i++) {
      log.info({ i, s: '∀😀é'.repeat(i % 50) }, 'line');
      if (i === 1500) log.info({ i: -1, s: '∀'.repeat(300000) }, 'long');
    }
  `;
  const r = spawnSync(process.execPath, [...TS_LOADER, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  t.equal(r.status, 0, r.stderr);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { i: number; s: string });
  t.equal(lines.length, 3001);
  const expected = Array.from({ length: 3000 }, (_, i) => i);
  expected.splice(1501, 0, -1);
  t.same(
    lines.map((l) => l.i),
    expected,
    'in order',
  );
  t.ok(
    lines.every((l) => l.s === (l.i < 0 ? '∀'.repeat(300000) : '∀😀é'.repeat(l.i % 50))),
    'every character as written',
  );
});
