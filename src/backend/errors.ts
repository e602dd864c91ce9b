/**
 * What the backend reports when it cannot take work: backend errors, not HTTP answers. The
 * edge (src/server/error-handler.ts) maps them to request-level codes: a pool shutting down is
 * `overloaded`, Lean failing to start is `environment_unavailable`.
 */
export class BackendError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'BackendError';
  }
}

/** A session pool refuses work because it is shutting down (or has been destroyed). */
export class PoolClosedError extends BackendError {
  readonly pool: string;
  constructor(pool: string) {
    super(`the ${pool} pool is shutting down`);
    this.name = 'PoolClosedError';
    this.pool = pool;
  }
}

/**
 * Lean itself could not start for an environment (its REPL did not launch, or its header does not
 * import): the whole environment is unavailable, and its listing says so until the next re-probe.
 * Other `environment_unavailable` answers (a tool's own missing build, such as the comparator's)
 * concern one tool only and leave the environment's availability alone.
 */
export class LeanStartError extends BackendError {
  readonly pool: string;
  readonly reason: string;
  constructor(pool: string, reason: string, opts: { cause?: unknown } = {}) {
    super(`Lean failed to start for ${pool}: ${reason}`, opts);
    this.name = 'LeanStartError';
    this.pool = pool;
    this.reason = reason;
  }
}
