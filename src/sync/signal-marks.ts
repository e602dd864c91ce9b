/**
 * Marks on a request's AbortSignal: the wall-clock deadline behind it, and whether Lean runs the
 * request's work now. The admission layer marks the signal it
 * creates for a request; the Lean backend reads it to give each command a heartbeat
 * budget that ends before the deadline (so Lean stops the command and the session
 * survives), without the tools in between having to pass a number along.
 *
 * The mark is a property of the signal under a symbol of this module's, not a WeakMap entry:
 * an entry per request was an ephemeron table insert and work for every collection (visible in
 * the daemon's perf profile of a miss).
 */
const DEADLINE_AT = Symbol('lean-tool.deadlineAt');

type Marked = AbortSignal & { [DEADLINE_AT]?: number };

/** Record that `signal` aborts at `atMs` (epoch ms). */
export function markDeadline(signal: AbortSignal, atMs: number): void {
  (signal as Marked)[DEADLINE_AT] = atMs;
}

/** Epoch ms at which `signal` aborts for its deadline, if one was marked. */
export function deadlineOf(signal: AbortSignal | undefined): number | undefined {
  return (signal as Marked | undefined)?.[DEADLINE_AT];
}

const LEAN_RUNNING = Symbol('lean-tool.leanRunning');

type Running = AbortSignal & { [LEAN_RUNNING]?: number };

/**
 * Record that Lean runs work of the request behind `signal`, until the returned function is called. A
 * deadline that fires meanwhile is a Lean timeout (AXLE's `LeanTimeout`, a deterministic outcome for this
 * input), not the service's own deadline (queue wait, no Lean run), which admission answers otherwise.
 */
export function markLeanRunning(signal: AbortSignal): () => void {
  const s = signal as Running;
  s[LEAN_RUNNING] = (s[LEAN_RUNNING] ?? 0) + 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    s[LEAN_RUNNING] = (s[LEAN_RUNNING] ?? 1) - 1;
  };
}

/** Whether Lean runs work of the request behind `signal` now. */
export function leanRunning(signal: AbortSignal | undefined): boolean {
  return ((signal as Running | undefined)?.[LEAN_RUNNING] ?? 0) > 0;
}

const ON_READY = Symbol('lean-tool.onSessionReady');

type Readying = AbortSignal & { [ON_READY]?: (() => void) | undefined };

/**
 * The request's deadline counts from its Lean session being ready (Kimina's rule: a REPL's cold
 * start is not the snippet's time): `restart` re-arms it when the backend reports the session
 * ready (sessionReady), once.
 */
export function onSessionReady(signal: AbortSignal, restart: () => void): void {
  (signal as Readying)[ON_READY] = restart;
}

/** The backend holds a ready session for the request behind `signal` (its header imported). */
export function sessionReady(signal: AbortSignal | undefined): void {
  const s = signal as Readying | undefined;
  const restart = s?.[ON_READY];
  if (!restart) return;
  s[ON_READY] = undefined;
  restart();
}
