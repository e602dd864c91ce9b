/** The one place where any thrown error becomes an HTTP status and `{error: {code, message, details?}}`. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isServiceError, ServiceError } from '../errors.ts';

/** Fastify's own errors (body parsing, limits) → our codes. */
export function toServiceError(err: unknown): ServiceError {
  if (isServiceError(err)) return err;
  const e = err as Partial<FastifyError> & Error;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError('payload_too_large', 'the request body exceeds the configured limit (server.bodyLimitBytes)');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': // not raised: every media type is parsed as JSON (server/body.ts)
      return new ServiceError('malformed_json', 'the request body could not be read as JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServiceError('malformed_json', 'the request body is empty; expected a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ServiceError('malformed_json', 'the request body length does not match Content-Length');
  }
  if (e instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ServiceError('malformed_json', `the request body is not valid JSON: ${e.message}`);
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ServiceError('invalid_request', e.message);
  }
  return new ServiceError('internal', 'internal error; the daemon log has the details under this request id', { cause: err });
}

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const se = toServiceError(err);
  if (se.code === 'internal') request.log.error({ err }, 'internal error');
  if (se.retryAfter !== undefined) reply.header('retry-after', String(se.retryAfter));
  return reply.code(se.status).type('application/json; charset=utf-8').send(se.toBody());
}
