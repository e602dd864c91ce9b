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
 * Lean itself could not start for a pool (its REPL did not launch, or the environment's own header
 * does not import). Only a failure of the environment's own header pool (`environmentWide`) makes
 * the whole environment unavailable, its listing saying so until the next re-probe: a pool of a
 * request's own header (`ignore_imports: false`) that fails to start concerns the requests of that
 * header only. Other `environment_unavailable` answers (a tool's own missing
 * build, such as the comparator's) concern one tool only and leave the environment's availability alone.
 */
export class LeanStartError extends BackendError {
  readonly pool: string;
  readonly reason: string;
  readonly environmentWide: boolean;
  constructor(pool: string, reason: string, opts: { cause?: unknown; environmentWide?: boolean } = {}) {
    super(`Lean failed to start for ${pool}: ${reason}`, opts);
    this.name = 'LeanStartError';
    this.pool = pool;
    this.reason = reason;
    this.environmentWide = opts.environmentWide ?? true;
  }
}

/** Whether an error means the environment itself cannot run Lean (only then is it reported unavailable). */
export function environmentCannotStart(err: unknown): err is LeanStartError {
  return err instanceof LeanStartError && err.environmentWide;
}
