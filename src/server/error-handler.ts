/** The one place where any thrown error becomes an HTTP status and `{error: {code, message, details?}}`. */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { LeanStartError, PoolClosedError } from '../backend/errors.ts';
import { axleErrorType, clip, isServiceError, serviceError, type ServiceError } from '../errors.ts';
import { sourceLimitError } from '../tools/source-limits.ts';

/** Fastify's own errors (body parsing, limits) and the backend's errors → our codes. */
export function toServiceError(err: unknown): ServiceError {
  if (isServiceError(err)) return err;
  const limit = sourceLimitError(err);
  if (limit) return limit;
  if (err instanceof PoolClosedError)
    return serviceError('overloaded', 'shutting_down', { what: `the ${err.pool} pool` }, { cause: err });
  if (err instanceof LeanStartError)
    return serviceError(
      'environment_unavailable',
      'lean_start_failed',
      { pool: err.pool, reason: err.reason },
      { cause: err },
    );
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

/** Characters of an error message, and of each detail's field and message, as sent: an error's size never follows its input's. */
export const ERROR_MESSAGE_CHARS = 2_000;
const DETAIL_CHARS = 300;
/** Details sent per error. */
export const ERROR_DETAILS = 10;

/**
 * The envelope `{error: {code, message, details?}}` of `se`, of bounded size whatever raised it:
 * a message or detail that echoes a huge input is clipped, and only the first details are kept.
 */
export function errorBody(se: ServiceError): ReturnType<ServiceError['toBody']> {
  const error = {
    code: se.code,
    message: clip(se.message, ERROR_MESSAGE_CHARS),
    ...(se.details
      ? {
          details: se.details.slice(0, ERROR_DETAILS).map((d) => ({
            field: clip(String(d.field), DETAIL_CHARS),
            message: clip(String(d.message), DETAIL_CHARS),
          })),
        }
      : {}),
  };
  return { error };
}

/**
 * AXLE's deterministic-failure shape, `{"error": message, "error_type": "LeanTimeout" | "LeanResourceExceeded"}`
 * (sent with HTTP 200, as AXLE does: see ERROR_CODES.lean_timeout), for the codes that have one; undefined
 * for every other code, which keeps our envelope.
 */
export function axleFailureBody(se: ServiceError): { error: string; error_type: string } | undefined {
  const type = axleErrorType(se.code);
  return type === undefined ? undefined : { error: clip(se.message, ERROR_MESSAGE_CHARS), error_type: type };
}

/** Names the code of an answer whose body is AXLE's shape (no `code` field there): for logs, metrics and our client. */
export const ERROR_CODE_HEADER = 'x-error-code';

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const se = toServiceError(err);
  if (se.code === 'internal') request.log.error({ err }, 'internal error');
  if (se.retryAfter !== undefined) reply.header('retry-after', String(se.retryAfter));
  reply.header(ERROR_CODE_HEADER, se.code);
  return reply
    .code(se.status)
    .type('application/json; charset=utf-8')
    .send(axleFailureBody(se) ?? errorBody(se));
}

/** Router errors (fastify `frameworkErrors`): a bad URL or an over-long path segment. */
export function toFrameworkError(err: FastifyError): ServiceError {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return serviceError('uri_too_long', 'segment');
  if (err.code === 'FST_ERR_BAD_URL') return serviceError('bad_request', 'url');
  return toServiceError(err);
}

/** The ServiceError for an error Node's HTTP server raises before fastify sees a request. */
export function clientErrorFor(err: NodeJS.ErrnoException): ServiceError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return serviceError('request_timeout', 'receive');
    case 'HPE_HEADER_OVERFLOW':
      return serviceError('headers_too_large', 'headers');
    default:
      return serviceError('bad_request', 'parser', { reason: clip(String(err.code ?? 'parse error'), 40) });
  }
}

/**
 * fastify `clientErrorHandler`: answers Node's parser errors and timeouts on the raw socket
 * with the JSON envelope, then closes it (the connection's state is unknown past a parse error).
 */
export function writeClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const se = clientErrorFor(err);
  const body = JSON.stringify(se.toBody());
  socket.end(
    `HTTP/1.1 ${se.status} ${STATUS_TEXT[se.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};
