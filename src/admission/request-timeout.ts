/** Request timeouts: timeout_seconds capped for non-admin callers, enforced with an AbortSignal. */
import { serviceError, type ServiceError } from '../errors.ts';
import { leanRunning, markDeadline, onSessionReady } from '../sync/signal-marks.ts';
import { noop } from '../util/arrays.ts';
import type { KeyClass } from './keys.ts';

/** A controller that belongs to one request (Node's AbortController, or src/util/request-abort.ts). */
export interface OwnController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

export function effectiveTimeoutSeconds(requested: number, keyClass: KeyClass, capSeconds: number): number {
  return keyClass === 'admin' ? requested : Math.min(requested, capSeconds);
}

/**
 * Runs `work` with a signal that aborts at the deadline or when `parent` aborts
 * (client gone). The returned promise rejects with a 504 at the deadline even if
 * `work` ignores its signal, so no caller waits past it.
 *
 * `own`, when given, is the controller behind `parent` and belongs to this request alone (the
 * HTTP route's client-gone controller): the deadline then aborts it directly, so a request
 * makes one AbortController, not two joined by a listener (each is costly to make and its
 * first listener as much again, in Node 20).
 */
export function withDeadline<T>(
  seconds: number,
  parent: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
  own?: OwnController,
  fromSession?: FromSession,
): Promise<T> {
  // Already aborted (a cancel in the same read as its request): never start the work.
  if (parent?.aborted) return Promise.reject(parent.reason instanceof Error ? parent.reason : new Error('aborted'));
  // One promise settled by whichever comes first (cheaper than racing a second one per request).
  return new Promise<T>((resolve, reject) => {
    const d = new Deadline(seconds, own && own.signal === parent ? own : undefined, parent, resolve, reject);
    if (fromSession) d.fromSession(fromSession.coldStartSeconds);
    let started: Promise<T>;
    try {
      started = work(d.ctrl.signal);
    } catch (e) {
      d.fail(e);
      return;
    }
    started.then(
      (v) => d.done(v),
      (e: unknown) => d.fail(e),
    );
  });
}

/**
 * A deadline that counts from the request's Lean session being ready (Kimina's routes): until
 * then it is `seconds` plus the cold start's own bound (`lean.startupTimeoutSeconds`), so a
 * request still never waits unbounded; when the backend reports the session ready
 * (src/sync/signal-marks.ts sessionReady), `seconds` start again from then.
 */
export interface FromSession {
  coldStartSeconds: number;
}

/** Durations whose timer list is kept alive (keepTimerList), at most. */
const KEPT_TIMER_LISTS = 16;
/** Node's longest timer (a longer one is clamped to 1 ms: lib/internal/timers.js TIMEOUT_MAX). */
const TIMEOUT_MAX = 2 ** 31 - 1;
const keptLists = new Map<number, NodeJS.Timeout>();

/**
 * Node keeps timers in one list per duration and deletes a list whose last timer is cleared, when
 * that timer is refed (`unenroll`, lib/internal/timers.js, Node 20: "We only delete refed lists
 * because unrefed ones are incredibly likely to come from http and be recreated"); the next timer
 * of that duration makes it again: a TimersList, a priority-queue insert, and a property added to
 * and deleted from the lists' dictionary. A daemon answering one request at a time paid that on
 * each (visible in its perf profile of a miss). An unref'd interval of the duration keeps the list
 * from emptying: it fires once a period and does nothing, and keeps no process alive.
 */
function keepTimerList(ms: number): void {
  if (ms < 1000 || ms > TIMEOUT_MAX || keptLists.size >= KEPT_TIMER_LISTS || keptLists.has(ms)) return;
  keptLists.set(ms, setInterval(noop, ms).unref());
}

/**
 * One request's deadline: its timer, the controller it aborts, and (with a controller of its own)
 * the parent's abort passed on to it. The object is the parent's listener (`handleEvent`) and its
 * timer's argument: no named closure per request (the build keeps function names,
 * a defineProperty for each one made).
 */
class Deadline<T> {
  readonly ctrl: OwnController;
  #at: number;
  #timer: NodeJS.Timeout;
  readonly #linked: AbortSignal | undefined;

  constructor(
    private readonly seconds: number,
    own: OwnController | undefined,
    parent: AbortSignal | undefined,
    private readonly resolve: (v: T) => void,
    private readonly reject: (e: unknown) => void,
  ) {
    const ms = Math.max(0, Math.round(seconds * 1000));
    this.#at = Date.now() + ms;
    this.ctrl = own ?? new AbortController();
    markDeadline(this.ctrl.signal, this.#at);
    this.#linked = own ? undefined : parent;
    this.#linked?.addEventListener('abort', this, { once: true });
    keepTimerList(ms);
    this.#timer = setTimeout(Deadline.#expire, ms, this);
  }

  /** The deadline waits for the session (FromSession): longer by the cold start's bound until it is ready. */
  fromSession(coldStartSeconds: number): void {
    this.#arm(this.seconds + coldStartSeconds);
    onSessionReady(this.ctrl.signal, () => {
      if (!this.ctrl.signal.aborted) this.#arm(this.seconds);
    });
  }

  /** The timer (and the signal's deadline mark, which Lean's heartbeat budget reads) set `seconds` from now. */
  #arm(seconds: number): void {
    clearTimeout(this.#timer);
    const ms = Math.max(0, Math.round(seconds * 1000));
    this.#at = Date.now() + ms;
    markDeadline(this.ctrl.signal, this.#at);
    this.#timer = setTimeout(Deadline.#expire, ms, this);
  }

  /** The parent aborted (client gone): passed on to the work's signal. */
  handleEvent(): void {
    this.ctrl.abort(this.#linked!.reason);
  }

  static #expire<U>(d: Deadline<U>): void {
    // Created only when it fires: an Error captures a stack, which costs on every request otherwise.
    const timeoutError = d.#expired();
    d.#linked?.removeEventListener('abort', d);
    d.ctrl.abort(timeoutError);
    d.reject(timeoutError);
  }

  /** The deadline's error: Lean's timeout when Lean was running the request then, else the service's own. */
  #expired(): ServiceError {
    return leanRunning(this.ctrl.signal)
      ? serviceError('lean_timeout', 'deadline', { seconds: this.seconds })
      : serviceError('timeout', 'deadline', { seconds: this.seconds });
  }

  #settle(): void {
    clearTimeout(this.#timer);
    this.#linked?.removeEventListener('abort', this);
  }

  done(v: T): void {
    this.#settle();
    // Work that held the thread past the deadline (the timer could not fire meanwhile)
    // finishes before the timer's turn: it is late all the same, never a 200.
    if (Date.now() > this.#at) this.reject(this.#expired());
    else this.resolve(v);
  }

  fail(e: unknown): void {
    this.#settle();
    this.reject(e);
  }
}
