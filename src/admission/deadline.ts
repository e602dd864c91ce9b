/** Deadlines: timeout_seconds capped for non-admin callers, enforced with an AbortSignal. */
import { ServiceError } from '../errors.ts';
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
export async function withDeadline<T>(seconds: number, parent: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  // Already aborted (a cancel in the same read as its request): never start the work.
  parent?.throwIfAborted();
  const ctrl = new AbortController();
  const ms = Math.max(0, Math.round(seconds * 1000));
  markDeadline(ctrl.signal, Date.now() + ms);
  let timer: NodeJS.Timeout | undefined;
  const onParentAbort = () => ctrl.abort(parent!.reason);
  parent?.addEventListener('abort', onParentAbort, { once: true });
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Created only when it fires: an Error captures a stack, which costs on every request otherwise.
      const timeoutError = new ServiceError('timeout', `the request exceeded its deadline of ${seconds} s`);
      ctrl.abort(timeoutError);
      reject(timeoutError);
    }, ms);
  });
  try {
    return await Promise.race([work(ctrl.signal), expired]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  }
}
