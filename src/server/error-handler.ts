/** The one place where any thrown error becomes an HTTP status and `{error: {code, message, details?}}`. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { LeanStartError, PoolClosedError } from '../backend/errors.ts';
import { isServiceError, serviceError, type ServiceError } from '../errors.ts';

/** Fastify's own errors (body parsing, limits) and the backend's errors → our codes. */
export function toServiceError(err: unknown): ServiceError {
  if (isServiceError(err)) return err;
  if (err instanceof PoolClosedError) return serviceError('overloaded', 'shutting_down', { what: `the ${err.pool} pool` }, { cause: err });
  if (err instanceof LeanStartError) return serviceError('environment_unavailable', 'lean_start_failed', { pool: err.pool, reason: err.reason }, { cause: err });
  const e = err as Partial<FastifyError> & Error;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return serviceError('payload_too_large', 'body');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': // not raised: every media type is parsed as JSON (server/body.ts)
      return serviceError('malformed_json', 'unreadable');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return serviceError('malformed_json', 'empty_body');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return serviceError('malformed_json', 'content_length');
  }
  if (e instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return serviceError('malformed_json', 'body', { reason: e.message });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return serviceError('invalid_request', 'http', { message: e.message });
  }
  return serviceError('internal', 'unexpected', {}, { cause: err });
}

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const se = toServiceError(err);
  if (se.code === 'internal') request.log.error({ err }, 'internal error');
  if (se.retryAfter !== undefined) reply.header('retry-after', String(se.retryAfter));
  return reply.code(se.status).type('application/json; charset=utf-8').send(se.toBody());
}
