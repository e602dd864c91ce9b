/** Deadlines: timeout_seconds capped for non-admin callers, enforced with an AbortSignal. */
import { serviceError } from '../errors.ts';
import { markDeadline } from '../sync/deadline.ts';
import type { KeyClass } from './keys.ts';

export function effectiveTimeoutSeconds(requested: number, keyClass: KeyClass, capSeconds: number): number {
  return keyClass === 'admin' ? requested : Math.min(requested, capSeconds);
}

/**
 * Runs `work` with a signal that aborts at the deadline or when `parent` aborts
 * (client gone). The returned promise rejects with a 504 at the deadline even if
 * `work` ignores its signal, so no caller waits past it.
 */
export function withDeadline<T>(
  seconds: number,
  parent: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  // Already aborted (a cancel in the same read as its request): never start the work.
  if (parent?.aborted) return Promise.reject(parent.reason instanceof Error ? parent.reason : new Error('aborted'));
  const ctrl = new AbortController();
  const ms = Math.max(0, Math.round(seconds * 1000));
  const deadlineAt = Date.now() + ms;
  markDeadline(ctrl.signal, deadlineAt);
  const onParentAbort = () => ctrl.abort(parent!.reason);
  parent?.addEventListener('abort', onParentAbort, { once: true });
  // One promise settled by whichever comes first (cheaper than racing a second one per request).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Created only when it fires: an Error captures a stack, which costs on every request otherwise.
      const timeoutError = serviceError('timeout', 'deadline', { seconds });
      parent?.removeEventListener('abort', onParentAbort);
      ctrl.abort(timeoutError);
      reject(timeoutError);
    }, ms);
    const settle = () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    };
    let started: Promise<T>;
    try {
      started = work(ctrl.signal);
    } catch (e) {
      settle();
      reject(e);
      return;
    }
    started.then(
      (v) => {
        settle();
        // Work that held the thread past the deadline (the timer could not fire meanwhile)
        // finishes before the timer's turn: it is late all the same, never a 200 (issue 23).
        if (Date.now() > deadlineAt) reject(serviceError('timeout', 'deadline', { seconds }));
        else resolve(v);
      },
      (e: unknown) => {
        settle();
        reject(e);
      },
    );
  });
}
