/**
 * The request log line written from pino's fragments (src/server/request-line.ts) says what
 * pino's own `child({ reqId }).info(fields, msg)` says, and the daemon's buffered destination
 * (LineBuffer, src/log.ts) writes every line, in order, through partial writes and at exit.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { PLAIN_LAYOUT } from '../../src/log.ts';
import { infoLineWriter, members } from '../../src/server/request-line.ts';

/** A pino logger with the daemon's layout, writing into `lines`. */
function capture(lines: string[]) {
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(s) });
  (logger as unknown as Record<symbol, unknown>)[PLAIN_LAYOUT] = true;
  return logger;
}

t.test('the template line and pino agree, member for member', async (t) => {
  const lines: string[] = [];
  const logger = capture(lines);
  const write = infoLineWriter(logger);
  if (!write) throw new Error('no writer for a plain logger');
  const fields = {
    method: 'POST',
    url: '/api/v1/che"ck?x=\\\u0001é',
    tool: 'che"ck',
    environment: undefined,
    keyClass: 'user',
    status: 200,
    queueMs: undefined,
    totalMs: 3,
    cache: 'hit',
    odd: Number.NaN,
  };
  write('req-7', fields, 'request');
  logger.child({ reqId: 'req-7' }).info(fields, 'request');
  t.equal(lines.length, 2);
  const [ours, theirs] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  // The clock moves between the two lines; everything else is the same, in the same order.
  t.same(Object.keys(ours!), Object.keys(theirs!), 'same members in the same order');
  t.same({ ...ours, time: 0 }, { ...theirs, time: 0 }, 'same values');
  t.ok(lines[0]!.endsWith('}\n'), 'one line');
});

t.test('a logger of another layout gets no template writer', async (t) => {
  t.equal(infoLineWriter(pino({ level: 'info' })), undefined);
});

t.test('members: undefined left out, numbers bare, strings escaped', async (t) => {
  t.equal(members({ a: 1, b: undefined, c: 'x"y', d: Infinity }), ',"a":1,"c":"x\\"y","d":null');
});

t.test('LineBuffer: every line, in order, written at exit without a flush', async (t) => {
  const script = `
    import { createLogger } from ${JSON.stringify(path.resolve(import.meta.dirname, '../../src/log.ts'))};
    const log = createLogger('info');
    for (let i = 0; i < 5000; i++) log.info({ i }, 'line');
  `;
  const r = spawnSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', script], {
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
