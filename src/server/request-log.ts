/** The one log line per request (method, url, tool, environment, key class, status, timings, cache). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { infoTextWriter, jsonChars } from './request-line.ts';

/**
 * What a cache hit answered outside fastify (src/server/hit-front.ts) logs. Every value is JSON
 * text as it stands (no character to escape): the ids are the daemon's own (`req-<base 36>`, a
 * UUID), the url and tool matched the front's tool path (`[A-Za-z0-9_./-]`), the key class is one
 * of its names.
 */
export interface HitLine {
  reqId: string;
  requestId: string;
  url: string;
  tool: string;
  keyClass: string;
  totalMs: number;
}

/**
 * The request line of a hit answered outside fastify, or undefined when info is off: the same
 * members, in the same order, as the onResponse hook below writes for a hit (no environment,
 * no queue time). The daemon's own logger gets them as one template (no generic member loop);
 * another logger (tests) as fastify's `request.log` would, a child with `reqId`.
 */
export function hitLineWriter(logger: Logger): ((h: HitLine) => void) | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  const write = infoTextWriter(logger);
  if (!write) {
    return (h) =>
      logger.child({ reqId: h.reqId }).info(
        {
          requestId: h.requestId,
          method: 'POST',
          url: h.url,
          tool: h.tool,
          keyClass: h.keyClass,
          status: 200,
          totalMs: h.totalMs,
          cache: 'hit',
        },
        'request',
      );
  }
  // The values need no escaping (above): one template, no JSON.stringify.
  return (h) =>
    write(
      `,"reqId":"${h.reqId}","requestId":"${h.requestId}","method":"POST","url":"${h.url}","tool":"${h.tool}",` +
        `"keyClass":"${h.keyClass}","status":200,"totalMs":${num(h.totalMs)},"cache":"hit","msg":"request"}`,
    );
}

/**
 * Registered only when info is on: the hit path is hot. A callback hook, not an async one: no
 * promise per request. The daemon's own logger writes the line through a template
 * (`requestLine`); another logger (tests) through request.log.
 */
export function registerRequestLog(app: FastifyInstance, logger: Logger): void {
  if (!logger.isLevelEnabled('info')) return;
  const write = infoTextWriter(logger);
  if (write) {
    app.addHook('onResponse', (request, reply, done) => {
      write(requestLine(request, reply));
      done();
    });
    return;
  }
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(requestFields(request, reply), 'request');
    done();
  });
}

const NO_INFO: FastifyRequest['svc'] = {};

/** The request line's members as an object, for a logger that takes one (`requestLine` writes the same as text). */
export function requestFields(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const s = request.svc ?? NO_INFO;
  return {
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
  };
}

/**
 * The text of 0 to 1023, made once: a line's numbers (status, ms counts) are mostly small integers, and
 * writing one went through V8's number-to-string runtime call whenever its number-string cache missed
 * (seen in the daemon's perf profile of a miss).
 */
const SMALL_INTS = Array.from({ length: 1024 }, (_, i) => String(i));

/** A number member's JSON text, as pino writes it (a number that is not finite is null). */
export const num = (n: number): string =>
  n >= 0 && n < SMALL_INTS.length && Number.isInteger(n) ? SMALL_INTS[n]! : Number.isFinite(n) ? `${n}` : 'null';

/**
 * The request line after the logger's own fragments (`,"reqId":…,"msg":"request"}`): the same
 * members, in the same order and with the same JSON text, as pino writes for
 * `request.log.info({ requestId, method, url, tool, environment, keyClass, status, queueMs,
 * totalMs, cache }, 'request')` (undefined ones left out). One template with the quotes in its
 * constant parts and strings copied only when they need escaping (`jsonChars`): the generic
 * member loop (`members`, request-line.ts) built a fields object, a string per member and its
 * JSON.stringify copy, ~2.2 KB per line.
 */
export function requestLine(request: FastifyRequest, reply: FastifyReply): string {
  const s = request.svc ?? NO_INFO;
  const { requestId, tool, environment, queueMs, cache } = s;
  return (
    `,"reqId":"${jsonChars(request.id)}"` +
    (requestId === undefined ? '' : `,"requestId":"${jsonChars(requestId)}"`) +
    `,"method":"${jsonChars(request.method)}","url":"${jsonChars(request.url)}"` +
    (tool === undefined ? '' : `,"tool":"${jsonChars(tool)}"`) +
    (environment === undefined ? '' : `,"environment":"${jsonChars(environment)}"`) +
    `,"keyClass":"${jsonChars(request.caller?.keyClass ?? 'rejected')}","status":${num(reply.statusCode)}` +
    (queueMs === undefined ? '' : `,"queueMs":${num(queueMs)}`) +
    `,"totalMs":${num(Math.round(reply.elapsedTime))}` +
    (cache === undefined ? '' : `,"cache":"${jsonChars(cache)}"`) +
    ',"msg":"request"}'
  );
}
