/** Literal string types joined, for `joined`. */
type Joined<P extends readonly string[]> = P extends readonly [infer H extends string, ...infer R extends string[]]
  ? `${H}${Joined<R>}`
  : '';

/**
 * A template too long for one source line, written in parts: the parts joined, keeping the
 * template's literal type, from which `serviceError` reads its `{placeholders}`.
 */
const joined = <const P extends readonly string[]>(...parts: P): Joined<P> => parts.join('') as Joined<P>;

/**
 * The one table of request-level errors. Every error that leaves the daemon as a
 * non-200 response is a ServiceError carrying one of these codes; the server's
 * error handler maps it to `{ error: { code, message, details? } }` and the status.
 *
 * `retryable` marks the conditions a client may retry (429/503): the public AXLE
 * client retries exactly those two statuses (and connection failures), so nothing
 * permanent may use them. An environment that cannot run Lean is permanent until an
 * operator acts: 409, which the AXLE client reports at once as a conflict (see docs/errors.md).
 * docs/errors.md lists every code (checked by test/errors.test.ts).
 *
 * As in fastify's lib/errors.js, the wording lives here: each code carries its message
 * templates, and throw sites name one and fill its `{placeholders}` (`serviceError`), so every
 * message of a code can be read in one place.
 */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    retryable: false,
    summary: 'The body failed validation; `details` names each offending field.',
    messages: {
      cluster_unknown_tool: 'unknown tool {tool}',
      body_not_object: 'invalid request for {tool}: the body must be a JSON object',
      fields: 'invalid request for {tool}: {problems}',
      http: '{message}',
      binary_frame: 'send text frames holding JSON',
      stream_message: 'invalid stream message: {problems}; send {id, tool, request} or {id, cancel: true}',
      duplicate_id: 'id {id} is already in flight on this socket',
      cancel_unknown:
        'cannot cancel {id}: no request with that id is in flight on this socket (it finished, or never started)',
      no_theorem: 'formal_statement declares no theorem for comparator to check',
      definition_holes: joined(
        'formal_statement has definition holes (sorried definitions: {names}); ',
        'comparator {tag}, pinned for environment {env}, has none (they came with v4.30.0) and rejects a solution that ',
        'fills one its theorems use: use an environment at Lean v4.30.0 or later',
      ),
      limit: '{field} {problem}',
      source_limit: 'a Lean source in this request is too costly to model: {problem}',
      unknown_state:
        'no live proof search state {state} on this connection (deleted, expired, lost, or never handed out)',
      state_limit: '{scope} holds {count}, its limit ({setting}); delete some with goal.delete first',
      tactic_too_long: 'tactic {index} has {chars} characters, more than search.maxTacticChars ({max})',
      no_declaration: 'content declares no {name}',
      no_goal: 'nothing to start from: {reason}',
    },
  },
  bad_request: {
    status: 400,
    retryable: false,
    summary: 'The HTTP request itself is malformed (rejected by the HTTP parser or the router before any route ran).',
    messages: { parser: 'the HTTP request is malformed ({reason})', url: 'the URL is not validly encoded' },
  },
  request_timeout: {
    status: 408,
    retryable: false,
    summary: 'The request headers or body did not arrive within `server.headersTimeoutMs` / `server.requestTimeoutMs`.',
    messages: { receive: 'the request did not arrive in time (server.requestTimeoutMs / server.headersTimeoutMs)' },
  },
  uri_too_long: {
    status: 414,
    retryable: false,
    summary: 'A path segment is longer than the router accepts.',
    messages: { segment: 'a path segment is longer than the router accepts' },
  },
  headers_too_large: {
    status: 431,
    retryable: false,
    summary: "The request line and headers exceed Node's header size limit (16 KiB).",
    messages: { headers: 'the request line and headers exceed the 16 KiB limit' },
  },
  malformed_json: {
    status: 400,
    retryable: false,
    summary: 'The body is not parseable JSON.',
    messages: {
      empty_body: 'the request body is empty; expected a JSON object',
      content_length: 'the request body length does not match Content-Length',
      body: 'the request body is not valid JSON: {reason}',
      body_as:
        'the request body is not valid JSON ({reason}); it was sent {type}, and every body is read as JSON whatever its Content-Type',
      stream_message: 'the message is not valid JSON: {reason}',
      unreadable: 'the request body could not be read as JSON',
    },
  },
  unauthorized: {
    status: 401,
    retryable: false,
    summary: 'The `Authorization: Bearer` key is not a known key.',
    messages: { bad_header: 'the Authorization header must be "Bearer <API key>"', unknown_key: 'unknown API key' },
  },
  unknown_tool: {
    status: 404,
    retryable: false,
    summary: 'The path names no tool (`/api/v1/<tool>`).',
    messages: { tool: 'unknown tool "{tool}"; the tools are: {tools}' },
  },
  not_found: {
    status: 404,
    retryable: false,
    summary: 'No route with that path, or no shared link / recent request with that id.',
    messages: {
      route: 'no route {method} {path}; tools are POST /api/v1/<tool>, the API reference is GET /docs',
      share_request:
        'no recent request {id} of yours to share: a request can be shared by the caller that made it, for sharedLinks.recentSeconds after it was answered',
      shared_link: 'no shared link {id} (it was never saved, or it expired: sharedLinks.ttlSeconds)',
      shared_links_disabled: 'shared links are disabled on this daemon (sharedLinks.enabled)',
      doc_page: 'no documentation page {page}; GET /v1/docs/pages.json lists them (raw/<slug>.md)',
    },
  },
  method_not_allowed: {
    status: 405,
    retryable: false,
    summary: 'The path exists but not with that method; the Allow header lists the methods it takes.',
    messages: { method: '{method} is not allowed on {path}; use {allowed}' },
  },
  unknown_environment: {
    status: 404,
    retryable: false,
    summary: 'The `environment` names no configured environment.',
    messages: {
      cluster_worker: 'environment {env} is not configured on worker {node}',
      environment: 'unknown environment "{name}"; GET /v1/environments lists them ({known})',
    },
  },
  payload_too_large: {
    status: 413,
    retryable: false,
    summary: 'The body exceeds the configured `server.bodyLimitBytes`.',
    messages: {
      body: 'the request body exceeds the configured limit (server.bodyLimitBytes)',
      cluster_payload: joined(
        "the job ({bytes} bytes) exceeds the NATS server's max_payload of {limit} bytes, ",
        'the largest message the cluster can carry; send a smaller request, ',
        'or raise max_payload in the NATS configuration (up to server.bodyLimitBytes)',
      ),
    },
  },
  response_too_large: {
    status: 413,
    retryable: false,
    summary:
      'The response would exceed its bound: `limits.responseFactor` times the request size, at least `limits.responseMinBytes`.',
    messages: {
      bound: joined(
        'the response {what}, over the limit of {limit} for this request (limits.responseFactor × the request size, ',
        'at least limits.responseMinBytes); send a smaller request or raise the limit',
      ),
      event:
        'the stream event for this request exceeds the limit of {limit} bytes for one message (server.stream.sendHardLimitBytes)',
    },
  },
  queue_full: {
    status: 429,
    retryable: true,
    summary: "The caller's concurrency slots and wait queue are full; see Retry-After.",
    messages: {
      caller: 'too many concurrent requests for {caller}: {active} active, {queued} queued',
    },
  },
  not_implemented: {
    status: 501,
    retryable: false,
    summary: 'The tool exists in the contract but this daemon does not implement it yet.',
    messages: {
      cluster_worker: 'the tool {tool} is not implemented by worker {node}',
      tool: 'the tool {tool} is not implemented by this daemon yet',
    },
  },
  environment_unavailable: {
    status: 409,
    retryable: false,
    summary:
      'The request needs Lean and the environment cannot run it (toolchain, Lake project or REPL missing, ' +
      'or Lean fails to start); the message names the fix. Not retried: it lasts until an operator acts.',
    messages: {
      cluster_no_worker: 'no worker in the cluster can run Lean for environment {env}',
      cluster_not_configured: 'no live worker in the cluster has environment {env} configured',
      cluster_worker: 'environment {env} cannot run Lean on worker {node}: {reason}',
      cannot_run_lean:
        "environment {env} cannot run Lean: {reason}.{withoutLean} GET /v1/environments shows each environment's availability.",
      lean_start_failed: 'Lean failed to start for {pool}: {reason}',
      tool_build_missing: '{reason}',
    },
  },
  overloaded: {
    status: 503,
    retryable: true,
    summary:
      'The daemon, or the Lean session pool of the environment, is shutting down; another instance (or this one, restarted) can serve the retry.',
    messages: {
      cluster_claim: 'the cluster cannot take the request now: {reason}',
      cluster_no_workers: 'no worker is in the cluster now (none sent a heartbeat lately); retry when one has joined',
      cluster_unreachable: 'the cluster cannot take the request now: NATS is unreachable from this front ({reason})',
      cluster_queue: 'cannot queue the job on NATS: {reason}',
      shutting_down: '{what} is shutting down',
      mcp_sessions: joined(
        'no MCP session can be freed: all {limit} (server.mcp.maxSessions) are running tool calls or belong to callers ',
        'holding no more than you; retry later, or end unused sessions with DELETE /mcp',
      ),
      mcp_caller_sessions:
        'your {limit} MCP sessions (server.mcp.maxSessionsPerCaller) are all running tool calls; retry later, or end unused sessions with DELETE /mcp',
    },
  },
  timeout: {
    status: 504,
    retryable: false,
    summary:
      "The service's own deadline passed before Lean ran the request (queue wait, a structural tool, " +
      'the cluster queue): timeout_seconds, capped at 900 s for non-admin keys.',
    messages: {
      deadline: 'the request exceeded its deadline of {seconds} s',
    },
  },
  lean_timeout: {
    // AXLE (v1.5.0 on) answers a Lean worker's time budget as HTTP 200 with {"error", "error_type": "LeanTimeout"},
    // which its client raises as the non-retryable LeanTimeout, and its v1.2.0 client as AxleRuntimeError
    // [AxiomMath/axiom-lean-engine CHANGELOG v1.5.0; axle/tests: `test_run_one_raises_timeout` feeds that body
    // as the response text of a 200; axle/client.py v1.2.0 `run_one`: an "error" key raises AxleRuntimeError].
    status: 200,
    retryable: false,
    axleType: 'LeanTimeout',
    summary:
      'Lean ran out of time on this input: the request deadline passed while Lean ran it, ' +
      'or Lean stopped a command at the heartbeat budget derived from the time left. A deterministic outcome for ' +
      'this input and budget: not retried, not cached. Sent in AXLE\'s shape: HTTP 200, `{"error": ' +
      'message, "error_type": "LeanTimeout"}`.',
    messages: {
      deadline: 'lean worker timeout: the request exceeded its deadline of {seconds} s while Lean ran it',
      heartbeat_budget:
        'lean worker timeout: Lean stopped a command at the heartbeat budget derived from the remaining time (maxHeartbeats); raise timeout_seconds',
    },
  },
  lean_resource_exceeded: {
    // AXLE's shape for its Lean worker's memory cap (same sources as lean_timeout; `test_run_one_raises_resource_exceeded`).
    status: 200,
    retryable: false,
    axleType: 'LeanResourceExceeded',
    summary:
      'The Lean process exceeded its memory cap (`lean.maxRssMb`) or process cap while running this input, ' +
      "and was killed. Deterministic for this input: not retried, not cached. Sent in AXLE's shape: " +
      'HTTP 200, `{"error": message, "error_type": "LeanResourceExceeded"}`.',
    messages: {
      fault: 'lean worker resource exceeded: {reason}',
    },
  },
  cancelled: {
    status: 499,
    retryable: false,
    summary: 'The client cancelled the request or closed the connection (only ever answered on the stream channel).',
    messages: {
      cluster_front: 'cancelled by the front',
      cluster_worker_stopped: 'worker stopped',
      by_client: 'cancelled by the client',
      socket_closed: 'socket closed',
      client_disconnected: 'client disconnected',
    },
  },
  internal: {
    status: 500,
    retryable: false,
    summary: 'An unexpected failure inside the daemon; logged with the request id.',
    messages: {
      unexpected: 'internal error; the daemon log has the details under this request id',
      worker_failed: 'the structural worker failed: {reason}',
    },
  },
} as const satisfies Record<
  string,
  { status: number; retryable: boolean; axleType?: string; summary: string; messages: Record<string, string> }
>;

/** The codes of a deadline: the service's own (`timeout`) and Lean's (`lean_timeout`). */
export const TIMEOUT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['timeout', 'lean_timeout']);

/** AXLE's `error_type` of a code answered in AXLE's deterministic-failure shape (HTTP 200), if it is one. */
export function axleErrorType(code: ErrorCode): string | undefined {
  const e = ERROR_CODES[code];
  return 'axleType' in e ? e.axleType : undefined;
}

/** The code whose AXLE `error_type` is `type` (our client reads AXLE's shape back into a code). */
export function codeOfAxleType(type: string): ErrorCode | undefined {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => axleErrorType(c) === type);
}

export type ErrorCode = keyof typeof ERROR_CODES;
export type MessageKey<C extends ErrorCode> = keyof (typeof ERROR_CODES)[C]['messages'] & string;
type Template<C extends ErrorCode, K extends MessageKey<C>> = (typeof ERROR_CODES)[C]['messages'][K] & string;
/** The `{name}` placeholders of a template (a brace group with spaces or commas is literal text). */
type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}`
  ? (P extends `${string}${' ' | ','}${string}` ? never : P) | Placeholders<Rest>
  : never;
export type MessageParams<C extends ErrorCode, K extends MessageKey<C>> = Record<
  Placeholders<Template<C, K>>,
  string | number
>;

/** A template with its `{name}` placeholders filled. */
export function fillTemplate(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** Retry-After on a 429/503 whose raiser did not choose one. */
export const DEFAULT_RETRY_AFTER_SECONDS = 2;

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

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.details = opts.details;
    // Every transient answer says when to come back (a daemon restart or a freed worker takes seconds).
    this.retryAfter = opts.retryAfter ?? (this.retryable ? DEFAULT_RETRY_AFTER_SECONDS : undefined);
  }

  /** The same error with other field details (the stream names fields by their path in its message). */
  withDetails(details: ErrorDetail[]): ServiceError {
    return new ServiceError(this.code, this.message, {
      details,
      ...(this.retryAfter === undefined ? {} : { retryAfter: this.retryAfter }),
      cause: this.cause,
    });
  }

  toBody(): { error: { code: ErrorCode; message: string; details?: ErrorDetail[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** The error a throw site raises: `code`'s template `key`, filled with `params`. */
export function serviceError<C extends ErrorCode, K extends MessageKey<C>>(
  code: C,
  key: K,
  ...[params, opts]: [Placeholders<Template<C, K>>] extends [never]
    ? [params?: Record<string, never>, opts?: { details?: ErrorDetail[]; retryAfter?: number; cause?: unknown }]
    : [params: MessageParams<C, K>, opts?: { details?: ErrorDetail[]; retryAfter?: number; cause?: unknown }]
): ServiceError {
  const template = (ERROR_CODES[code].messages as Record<string, string>)[key]!;
  return new ServiceError(code, fillTemplate(template, (params ?? {}) as Record<string, string | number>), opts);
}

/** Input echoed in an error message: at most `max` characters, so an error never repeats a huge input. */
export function clip(s: string, max = 100): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length} characters)` : s;
}

/** An error another node raised (from its serviceError template) and sent as its JSON body: the same code, message and details here. */
export function relayedError(body: { code: ErrorCode; message: string; details?: ErrorDetail[] }): ServiceError {
  return new ServiceError(body.code, body.message, body.details ? { details: body.details } : {});
}

export const isServiceError = (e: unknown): e is ServiceError => e instanceof ServiceError;
