/**
 * A typed client for the daemon: one method per tool plus `environments()` and
 * `status()`, configured like the spec's clients (SERVICE_API_KEY, SERVICE_API_URL,
 * SERVICE_TIMEOUT_SECONDS, SERVICE_MAX_CONCURRENCY). At most `maxConcurrency` requests
 * are in flight; 429/503 and connection failures are retried with exponential backoff
 * and jitter (honouring Retry-After) within the window `timeoutSeconds + timeout_seconds`;
 * every other error is returned at once.
 */
import type { EnvironmentInfo } from '../contract/common.ts';
import { codeOfAxleType } from '../errors.ts';
import { TOOL_NAMES, type ToolName, type ToolRequestInput, type ToolResponse } from '../contract/tools.ts';

export interface ClientOptions {
  url?: string;
  apiKey?: string;
  /** Base of the retry window in seconds (default 1800). */
  timeoutSeconds?: number;
  /** Requests in flight at once (default 20). */
  maxConcurrency?: number;
  /** How long a refused connection is retried, seconds (default 5; a restart takes about that). */
  connectWindowSeconds?: number;
  /** Backoff: first delay and cap, milliseconds (default 1000 and 15000). */
  backoff?: { initialMs: number; maxMs: number };
  /** Called before each retry (the CLI reports it on stderr). */
  onRetry?: (info: { attempt: number; waitMs: number; error: ServiceRequestError }) => void;
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** `url` without its trailing slashes (a scan from the end: `/\/+$/` rescans a run of slashes from each of its starts). */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 47) end--;
  return url.slice(0, end);
}

/** Where the daemon is and the key to send: the options, else the spec's client variables (one reading for every client). */
export function serviceEndpoint(opts: { url?: string; apiKey?: string; env?: NodeJS.ProcessEnv }): {
  url: string;
  apiKey: string | undefined;
} {
  const env = opts.env ?? process.env;
  return {
    url: withoutTrailingSlashes(opts.url ?? env.SERVICE_API_URL ?? DEFAULT_URL),
    apiKey: opts.apiKey ?? env.SERVICE_API_KEY ?? undefined,
  };
}

/** A request-level error from the daemon (or the network). */
export class ServiceRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: { field: string; message: string }[] | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ServiceRequestError';
  }
}

/** FIFO semaphore: at most `n` holders. */
class Semaphore {
  #free: number;
  #waiters: (() => void)[] = [];
  constructor(n: number) {
    this.#free = n;
  }
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((r) => this.#waiters.push(r));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next();
      else this.#free++;
    };
  }
}

type ToolMethods = { [T in ToolName]: (request: ToolRequestInput<T>) => Promise<ToolResponse<T>> };

// The tool methods are installed in the constructor from the contract's tool list.
/* eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging --
   the interface only declares the methods the constructor installs */
export interface LeanToolClient extends ToolMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class LeanToolClient {
  readonly url: string;
  readonly timeoutSeconds: number;
  readonly maxConcurrency: number;
  #apiKey: string | undefined;
  #sem: Semaphore;
  #backoff: { initialMs: number; maxMs: number };
  #onRetry: ClientOptions['onRetry'];
  #connectWindowMs: number;
  #inFlight = 0;
  /** Highest number of requests seen in flight at once (for tests and diagnostics). */
  peakInFlight = 0;

  constructor(opts: ClientOptions = {}) {
    const env = opts.env ?? process.env;
    ({ url: this.url, apiKey: this.#apiKey } = serviceEndpoint(opts));
    this.timeoutSeconds = opts.timeoutSeconds ?? Number(env.SERVICE_TIMEOUT_SECONDS ?? 1800);
    this.maxConcurrency = Math.max(1, opts.maxConcurrency ?? Number(env.SERVICE_MAX_CONCURRENCY ?? 20));
    this.#sem = new Semaphore(this.maxConcurrency);
    this.#backoff = opts.backoff ?? { initialMs: 1000, maxMs: 15_000 };
    this.#onRetry = opts.onRetry;
    this.#connectWindowMs = (opts.connectWindowSeconds ?? 5) * 1000;
    const self = this as unknown as Record<ToolName, (r: unknown) => Promise<unknown>>;
    for (const tool of TOOL_NAMES) self[tool] = (request) => this.call(tool, request as ToolRequestInput<typeof tool>);
  }

  call<T extends ToolName>(tool: T, request: ToolRequestInput<T>): Promise<ToolResponse<T>> {
    const extra = Number((request as { timeout_seconds?: number }).timeout_seconds ?? 0);
    return this.#send('POST', `/api/v1/${tool}`, request, extra) as Promise<ToolResponse<T>>;
  }

  environments(): Promise<EnvironmentInfo[]> {
    return this.#send('GET', '/v1/environments', undefined, 0) as Promise<EnvironmentInfo[]>;
  }

  status(): Promise<Record<string, unknown> & { status: string }> {
    return this.#send('GET', '/v1/status', undefined, 0) as Promise<Record<string, unknown> & { status: string }>;
  }

  async #send(method: 'GET' | 'POST', path: string, body: unknown, extraSeconds: number): Promise<unknown> {
    const release = await this.#sem.acquire();
    this.#inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.#inFlight);
    try {
      const started = Date.now();
      const deadline = started + (this.timeoutSeconds + extraSeconds) * 1000;
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.#attempt(method, path, body, deadline);
        } catch (e) {
          const err = e instanceof ServiceRequestError ? e : this.#networkError(e);
          const wait = this.#delay(attempt, (e as { retryAfter?: number }).retryAfter);
          const until =
            err.code === 'connection_refused' ? Math.min(deadline, started + this.#connectWindowMs) : deadline;
          if (!err.retryable || Date.now() + wait >= until) throw err;
          this.#onRetry?.({ attempt: attempt + 1, waitMs: wait, error: err });
          await new Promise((r) => setTimeout(r, wait));
        }
      }
    } finally {
      this.#inFlight--;
      release();
    }
  }

  /** A failure below HTTP (fetch's TypeError with the socket error as its cause). */
  #networkError(e: unknown): ServiceRequestError {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? (e as { code?: string }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      const what = code === 'ECONNREFUSED' ? 'connection refused (is the daemon running?)' : `host not found (${code})`;
      return new ServiceRequestError(
        `cannot reach ${this.url}: ${what}; set SERVICE_API_URL (or --url) to the daemon's address`,
        0,
        'connection_refused',
        undefined,
        true,
      );
    }
    if ((e as Error).name === 'TimeoutError')
      return new ServiceRequestError(
        `no response from ${this.url} within the client's window (SERVICE_TIMEOUT_SECONDS)`,
        0,
        'client_timeout',
        undefined,
        false,
      );
    // A dropped connection (a daemon restarting, a proxy) may clear: retried in the whole window.
    if (code)
      return new ServiceRequestError(
        `cannot reach ${this.url}: ${cause?.message ?? code}`,
        0,
        'unavailable',
        undefined,
        true,
      );
    // No socket error at all (a malformed URL, a port fetch refuses to use): nothing a retry changes.
    return new ServiceRequestError(
      `cannot reach ${this.url}: ${cause?.message ?? (e as Error).message}; check SERVICE_API_URL (or --url)`,
      0,
      'unreachable',
      undefined,
      false,
    );
  }

  /** Exponential backoff with full jitter, at least Retry-After. */
  #delay(attempt: number, retryAfterSeconds?: number): number {
    const cap = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** attempt);
    const jittered = cap / 2 + Math.random() * (cap / 2);
    return Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
  }

  async #attempt(method: string, path: string, body: unknown, deadline: number): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    });
    const text = await res.text();
    if (res.ok) return answerOrAxleFailure(JSON.parse(text), res.status);
    let parsed: { error?: { code?: string; message?: string; details?: { field: string; message: string }[] } } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      // not our envelope (a proxy's page, say)
    }
    const retryable = res.status === 429 || res.status === 503;
    const err = new ServiceRequestError(
      parsed.error?.message ?? `HTTP ${res.status}: ${text.slice(0, 200)}`,
      res.status,
      parsed.error?.code ?? `http_${res.status}`,
      parsed.error?.details,
      retryable,
    );
    const ra = Number(res.headers.get('retry-after'));
    if (Number.isFinite(ra) && ra > 0) Object.assign(err, { retryAfter: ra });
    throw err;
  }
}

/**
 * A 200 answer, or the deterministic Lean failure AXLE sends with 200 (`{"error": message, "error_type":
 * "LeanTimeout" | "LeanResourceExceeded"}`: docs/errors.md) as a non-retryable error whose code is ours
 * (`lean_timeout`, `lean_resource_exceeded`), so a caller records it as an outcome and never retries it.
 */
function answerOrAxleFailure(v: unknown, status: number): unknown {
  const o = v as { error?: unknown; error_type?: unknown } | null;
  if (typeof o !== 'object' || o === null || typeof o.error !== 'string' || typeof o.error_type !== 'string') return v;
  const err = new ServiceRequestError(o.error, status, codeOfAxleType(o.error_type) ?? o.error_type, undefined, false);
  throw Object.assign(err, { errorType: o.error_type });
}
