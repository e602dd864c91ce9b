/**
 * A signal that aborts when `parent` does or after `ms`, whichever comes first.
 *
 * Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: Node 20 holds the sources of
 * `AbortSignal.any` only through WeakRefs [node v20.20 lib/internal/abort_controller.js,
 * `AbortSignal.any` adds `new SafeWeakRef(signal)` to `kSourceSignals`; `AbortSignal.timeout`'s
 * timer derefs a WeakRef too, and a timeout signal is kept alive only while it has an 'abort'
 * listener of its own]. A timeout signal that nothing else references is collected at the next
 * GC, its timer fires into an empty WeakRef, and the composite never aborts: a cluster front
 * waiting on a dead claim waited its whole 60 s deadline instead of re-checking each second
 * (test/cluster/operator.test.ts, under load). Later Node versions keep such signals alive
 * (`gcPersistentSignals.add(signal)` in `any`); this helper does not depend on either: its
 * timer holds its controller.
 *
 * Fast path (config fastPaths.deadlineSignal; off: `plainDeadlineSignal`, the call it replaced).
 * Retire when: package.json engines.node's minimum is a Node whose `AbortSignal.any` keeps an
 * `AbortSignal.timeout` source alive across a GC (nodejs/node#57736, reported on v23.11, closed;
 * still lost on v20.20) — test/fast-paths.test.ts fails on that Node — or re-check by 2027-05-31.
 */
export interface DeadlineSignal {
  readonly signal: AbortSignal;
  /** Whether `ms` ran out (rather than `parent` aborting). */
  readonly timedOut: boolean;
  /** Stops the timer and leaves `parent`: call when the guarded work ended. */
  clear(): void;
}

/** Whether deadlineSignal takes its own timer (set once by the process entry, src/main.ts, from the configuration). */
let ownTimer = true;
export function useDeadlineSignalTimer(on: boolean): void {
  ownTimer = on;
}

/** The plain path: what deadlineSignal replaced. `clear` stops nothing (AbortSignal.timeout's timer is unref'd). */
export function plainDeadlineSignal(parent: AbortSignal | undefined, ms: number): DeadlineSignal {
  const timeout = AbortSignal.timeout(ms);
  return {
    // eslint-disable-next-line no-restricted-properties -- the plain path, off by default (header above)
    signal: parent ? AbortSignal.any([parent, timeout]) : timeout,
    get timedOut() {
      return timeout.aborted;
    },
    clear() {},
  };
}

export function deadlineSignal(parent: AbortSignal | undefined, ms: number): DeadlineSignal {
  if (!ownTimer) return plainDeadlineSignal(parent, ms);
  const controller = new AbortController();
  let timedOut = false;
  const onParent = () => controller.abort(parent?.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, ms);
  // As AbortSignal.timeout's own timer: a deadline alone does not keep the process running.
  timer.unref();
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}
