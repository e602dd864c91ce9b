/** The one log line per request (method, url, tool, environment, key class, status, timings, cache). */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * Registered only when info is on: the hit path is hot. A callback hook, not an async one: no
 * promise per request.
 */
export function registerRequestLog(app: FastifyInstance, logger: Pick<Logger, 'isLevelEnabled'>): void {
  if (!logger.isLevelEnabled('info')) return;
  app.addHook('onResponse', (request, reply, done) => {
    const s = request.svc ?? {};
    request.log.info(
      {
        requestId: s.requestId,
        method: request.method,
        url: request.url,
        tool: s.tool,
        environment: s.environment,
        keyClass: request.caller?.keyClass ?? 'rejected',
        status: reply.statusCode,
        queueMs: s.queueMs,
        totalMs: Math.round(reply.elapsedTime),
        cache: s.cache,
      },
      'request',
    );
    done();
  });
}
