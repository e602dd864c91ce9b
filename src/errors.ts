/**
 * The one table of request-level errors. Every error that leaves the daemon as a
 * non-200 response is a ServiceError carrying one of these codes; the server's
 * error handler maps it to `{ error: { code, message, details? } }` and the status.
 *
 * `retryable` marks the conditions a client may retry (429/503): the public AXLE
 * client retries exactly those two statuses, so nothing permanent may use them.
 * docs/errors.md lists every code (checked by test/errors.test.ts).
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, retryable: false, summary: 'The body failed validation; `details` names each offending field.' },
  bad_request: { status: 400, retryable: false, summary: 'The HTTP request itself is malformed (rejected by the HTTP parser or the router before any route ran).' },
  request_timeout: { status: 408, retryable: false, summary: 'The request headers or body did not arrive within `server.headersTimeoutMs` / `server.requestTimeoutMs`.' },
  uri_too_long: { status: 414, retryable: false, summary: 'A path segment is longer than the router accepts.' },
  headers_too_large: { status: 431, retryable: false, summary: 'The request line and headers exceed Node\'s header size limit (16 KiB).' },
  malformed_json: { status: 400, retryable: false, summary: 'The body is not parseable JSON.' },
  unauthorized: { status: 401, retryable: false, summary: 'The `Authorization: Bearer` key is not a known key.' },
  unknown_tool: { status: 404, retryable: false, summary: 'The path names no tool (`/api/v1/<tool>`).' },
  not_found: { status: 404, retryable: false, summary: 'No route with that method and path.' },
  unknown_environment: { status: 404, retryable: false, summary: 'The `environment` names no configured environment.' },
  payload_too_large: { status: 413, retryable: false, summary: 'The body exceeds the configured `server.bodyLimitBytes`.' },
  unsupported_media_type: { status: 415, retryable: false, summary: 'Content-Type is neither application/json nor text/plain.' },
  queue_full: { status: 429, retryable: true, summary: "The caller's concurrency slots and wait queue are full; see Retry-After." },
  not_implemented: { status: 501, retryable: false, summary: 'The tool exists in the contract but this daemon does not implement it yet.' },
  environment_unavailable: { status: 503, retryable: true, summary: 'The environment needs Lean and its toolchain/REPL is not ready; the reason says what is missing. Re-probed periodically, so it clears once the toolchain is installed.' },
  overloaded: { status: 503, retryable: true, summary: 'No Lean worker could be had in time, or the daemon is shutting down.' },
  timeout: { status: 504, retryable: false, summary: 'Processing exceeded the deadline (timeout_seconds, capped at 900 s for non-admin keys).' },
  cancelled: { status: 499, retryable: false, summary: 'The client cancelled the request or closed the connection (reported on the stream channel).' },
  internal: { status: 500, retryable: false, summary: 'An unexpected failure inside the daemon; logged with the request id.' },
} as const satisfies Record<string, { status: number; retryable: boolean; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetail {
  /** Dotted path of the offending field, or '' for the body as a whole. */
  field: string;
  message: string;
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds a client should wait before retrying (429/503). */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, opts: { details?: ErrorDetail[]; retryAfter?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
  }

  toBody(): { error: { code: ErrorCode; message: string; details?: ErrorDetail[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** Input echoed in an error message: at most `max` characters, so an error never repeats a huge input. */
export function clip(s: string, max = 100): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length} characters)` : s;
}

/**
 * Lean itself could not start for an environment (its REPL did not launch, or its header does not
 * import): the whole environment is unavailable, and its listing says so until the next re-probe.
 * Other `environment_unavailable` answers (a tool's own missing build, such as the comparator's)
 * concern one tool only and leave the environment's availability alone.
 */
export class LeanStartError extends ServiceError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('environment_unavailable', message, opts);
    this.name = 'LeanStartError';
  }
}

export const isServiceError = (e: unknown): e is ServiceError => e instanceof ServiceError;
