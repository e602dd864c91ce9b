/**
 * The wall-clock deadline behind an AbortSignal. The admission layer marks the signal it
 * creates for a request; the Lean backend reads it to give each command a heartbeat
 * budget that ends before the deadline (so Lean stops the command and the session
 * survives), without the tools in between having to pass a number along.
 */
const deadlines = new WeakMap<AbortSignal, number>();

/** Record that `signal` aborts at `atMs` (epoch ms). */
export function markDeadline(signal: AbortSignal, atMs: number): void {
  deadlines.set(signal, atMs);
}

/** Epoch ms at which `signal` aborts for its deadline, if one was marked. */
export function deadlineOf(signal: AbortSignal | undefined): number | undefined {
  return signal ? deadlines.get(signal) : undefined;
}
