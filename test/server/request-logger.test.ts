/**
 * The per-request logger made on first use (src/server/request-logger.ts) writes what fastify's
 * default child writes (bindings, serializers, levels, children), and makes no child for a
 * request that does not log or logs below the level.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import t from 'tap';
import { lazyChildLogger, RequestLogger } from '../../src/server/request-logger.ts';

/** An app whose route logs through request.log and reply.log; its lines, parsed, `time` and `pid` left out. */
async function logged(lazy: boolean): Promise<{ app: FastifyInstance; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (s: string) => {
        const { time: _t, pid: _p, ...rest } = JSON.parse(s) as Record<string, unknown>;
        lines.push(rest);
      },
    },
  );
  let n = 0;
  const app = Fastify({
    loggerInstance: logger,
    disableRequestLogging: true,
    genReqId: () => `req-${n++}`,
    ...(lazy ? { childLoggerFactory: lazyChildLogger } : {}),
  });
  app.get('/log', async (request, reply) => {
    request.log.debug({ hidden: true }, 'below the level');
    request.log.info({ a: 1, err: new Error('boom') }, 'with %s', 'args');
    reply.log.warn('from the reply');
    request.log.child({ sub: 'x' }).error({ b: 2 }, 'from a child');
    return { level: request.log.level };
  });
  app.get('/quiet', async () => ({}));
  return { app: app as unknown as FastifyInstance, lines };
}

t.test('the same lines as fastify’s default child', async (t) => {
  const [ours, theirs] = [await logged(true), await logged(false)];
  for (const { app } of [ours, theirs]) {
    const r = await app.inject({ url: '/log' });
    t.same(r.json(), { level: 'info' });
    await app.inject({ url: '/quiet' });
    await app.close();
  }
  t.equal(ours.lines.length, 3, 'three lines, none below the level');
  const strip = (l: Record<string, unknown>) => ({ ...l, err: l.err && { ...(l.err as object), stack: 0 } });
  t.same(ours.lines.map(strip), theirs.lines.map(strip));
  t.match(ours.lines[0], { reqId: 'req-0', a: 1, msg: 'with args', err: { type: 'Error', message: 'boom' } });
  t.match(ours.lines[2], { reqId: 'req-0', sub: 'x', b: 2, level: 50 });
});

t.test('no child until a line is written at an enabled level; the level follows the child once made', async (t) => {
  let made = 0;
  const parent = pino({ level: 'info' }, { write: () => {} });
  const child = parent.child.bind(parent);
  parent.child = ((b: object, o?: object) => (made++, child(b, o))) as typeof parent.child;
  const log = new RequestLogger(parent, { reqId: 'r' }, {});
  log.debug('not written');
  log.trace('not written');
  t.equal(made, 0, 'nothing made for levels not written');
  t.equal(log.level, 'info', 'the parent’s level');
  log.info('written');
  t.equal(made, 1, 'made once');
  log.level = 'debug';
  t.equal(log.level, 'debug');
  t.equal(parent.level, 'info', 'the parent untouched');
  log.debug('now written');
  log.error('again');
  t.equal(made, 1, 'still one');
});

t.test('a route with its own log level gets its child at once', async (t) => {
  const parent = pino({ level: 'info' }, { write: () => {} });
  const app = Fastify({ loggerInstance: parent, childLoggerFactory: lazyChildLogger });
  app.get('/d', { logLevel: 'debug' }, async (request) => ({
    lazy: request.log instanceof RequestLogger,
    level: request.log.level,
  }));
  app.get('/i', async (request) => ({ lazy: request.log instanceof RequestLogger }));
  t.same((await app.inject({ url: '/d' })).json(), { lazy: false, level: 'debug' });
  t.same((await app.inject({ url: '/i' })).json(), { lazy: true });
  await app.close();
});
