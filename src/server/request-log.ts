/** The one log line per request (method, url, tool, environment, key class, status, timings, cache). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { infoLineWriter, type LineFields } from './request-line.ts';

/** Writes a request's line under its `reqId`. */
export type RequestLineWriter = (reqId: string, fields: LineFields) => void;

/**
 * The request line writer for requests answered outside fastify (src/server/hit-front.ts), or
 * undefined when info is off: the daemon's own logger writes through the template
 * (request-line.ts), another logger (tests) as fastify's `request.log` would, a child with `reqId`.
 */
export function requestLineWriter(logger: Logger): RequestLineWriter | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  const fast = infoLineWriter(logger);
  return fast
    ? (reqId, fields) => fast(reqId, fields, 'request')
    : (reqId, fields) => logger.child({ reqId }).info(fields, 'request');
}

/**
 * Registered only when info is on: the hit path is hot. A callback hook, not an async one: no
 * promise per request. The daemon's own logger writes the line through a template
 * (request-line.ts); another logger (tests) through request.log.
 */
export function registerRequestLog(app: FastifyInstance, logger: Logger): void {
  if (!logger.isLevelEnabled('info')) return;
  const fast = infoLineWriter(logger);
  const write = fast
    ? (request: FastifyRequest, fields: LineFields) => fast(String(request.id), fields, 'request')
    : (request: FastifyRequest, fields: LineFields) => request.log.info(fields, 'request');
  app.addHook('onResponse', (request, reply, done) => {
    const s = request.svc ?? {};
    write(request, {
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
    });
    done();
  });
}
