/** The one place where any thrown error becomes an HTTP status and `{error: {code, message, details?}}`. */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { clip, isServiceError, ServiceError } from '../errors.ts';

/** Fastify's own errors (body parsing, limits) → our codes. */
export function toServiceError(err: unknown): ServiceError {
  if (isServiceError(err)) return err;
  const e = err as Partial<FastifyError> & Error;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError('payload_too_large', 'the request body exceeds the configured limit (server.bodyLimitBytes)');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError('unsupported_media_type', 'send the body as application/json (text/plain holding JSON is accepted too)');
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

/** Router errors (fastify `frameworkErrors`): a bad URL or an over-long path segment. */
export function toFrameworkError(err: FastifyError): ServiceError {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return new ServiceError('uri_too_long', 'a path segment is longer than the router accepts');
  if (err.code === 'FST_ERR_BAD_URL') return new ServiceError('bad_request', 'the URL is not validly encoded');
  return toServiceError(err);
}

/** The ServiceError for an error Node's HTTP server raises before fastify sees a request. */
export function clientErrorFor(err: NodeJS.ErrnoException): ServiceError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ServiceError('request_timeout', 'the request did not arrive in time (server.requestTimeoutMs / server.headersTimeoutMs)');
    case 'HPE_HEADER_OVERFLOW':
      return new ServiceError('headers_too_large', 'the request line and headers exceed the 16 KiB limit');
    default:
      return new ServiceError('bad_request', `the HTTP request is malformed (${clip(String(err.code ?? 'parse error'), 40)})`);
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
    `HTTP/1.1 ${se.status} ${STATUS_TEXT[se.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };
