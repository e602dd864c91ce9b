/**
 * An abort controller for one HTTP request, cheap to make: the route makes one per miss (the
 * client-gone check and the deadline share it, admission/request-timeout.ts), and Node 20's own
 * AbortController with its listener is dear (measured in one process: making it
 * builds an EventTarget with its own map and moves its prototype; an EventTarget listener is a
 * record validated, wrapped and kept in that map), a visible share of a miss's CPU in the daemon's profile.
 * This one costs a small object.
 *
 * Its signal behaves as an AbortSignal does for every use the daemon makes of one (held to Node's
 * by test/util/request-abort.test.ts): `aborted`, `reason` (an `AbortError` DOMException when
 * none is given), `throwIfAborted`, `onabort`, and 'abort' listeners, functions or objects with
 * `handleEvent`, each once however often added, `once` and `signal` options honoured, called in
 * the order added with an Event of type 'abort' (one removed during the dispatch skipped), an
 * exception thrown by one reported as uncaught (as EventTarget does) without stopping the
 * others. Node's APIs that take a signal (piscina, events.once, timers/promises) check it by its
 * members, not its class; `fetch` and `AbortSignal.any` want Node's own, and no request signal
 * goes to either.
 *
 * Fast path (config fastPaths.lightAbortController; off: Node's AbortController). Retire when:
 * `node --import tsx bench/fast-paths.ts abort` measures Node's controller with one listener
 * as cheap as this one on engines.node's minimum, quiet machine (e.g. at its next raise); or re-check by 2027-05-31.
 */

type AbortListener = ((this: AbortSignal, ev: Event) => unknown) | { handleEvent(ev: Event): unknown };

interface Registered {
  listener: AbortListener;
  once: boolean;
  /** Removed while a dispatch holds it: not called, as EventTarget skips it. */
  removed: boolean;
}

export class RequestAbortSignal implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  #listeners: Registered[] | undefined = undefined;
  #onabort: ((this: AbortSignal, ev: Event) => unknown) | null = null;

  /** An event handler attribute: called in the place among the listeners where it was first set. */
  get onabort(): ((this: AbortSignal, ev: Event) => unknown) | null {
    return this.#onabort;
  }

  set onabort(handler: ((this: AbortSignal, ev: Event) => unknown) | null) {
    // The caller is made only when a handler is set (no object per request otherwise).
    this.#callOnabort ??= new OnabortCaller(this);
    if (handler && !this.#onabort) this.addEventListener('abort', this.#callOnabort);
    if (!handler) this.removeEventListener('abort', this.#callOnabort);
    this.#onabort = handler;
  }

  #callOnabort: OnabortCaller | undefined = undefined;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(
    type: string,
    listener: unknown,
    options?: boolean | { once?: boolean; signal?: AbortSignal },
  ): void {
    if (type !== 'abort' || !listener || this.aborted) return;
    const l = listener as AbortListener;
    const list = (this.#listeners ??= []);
    if (list.some((r) => r.listener === l)) return;
    const opts = typeof options === 'object' ? options : undefined;
    if (opts?.signal?.aborted) return;
    list.push({ listener: l, once: opts?.once === true, removed: false });
    opts?.signal?.addEventListener('abort', () => this.removeEventListener('abort', l), { once: true });
  }

  removeEventListener(type: string, listener: unknown): void {
    const list = this.#listeners;
    if (type !== 'abort' || !list) return;
    const i = list.findIndex((r) => r.listener === listener);
    if (i < 0) return;
    list[i]!.removed = true;
    list.splice(i, 1);
  }

  /**
   * The listeners as they were when it began, less those removed meanwhile; a `once` one leaves
   * before it is called. (EventTarget walks a live list: one added during a dispatch is called
   * when an earlier one is still to come. Not followed here: nothing in the daemon adds one then.)
   */
  dispatchEvent(event: Event): boolean {
    const list = this.#listeners;
    if (event.type !== 'abort' || !list) return true;
    for (const r of [...list]) {
      if (r.removed) continue;
      if (r.once) this.removeEventListener('abort', r.listener);
      call(this, r.listener, event);
    }
    return true;
  }

  /** The controller's abort: once, with `reason` (an AbortError when none). */
  abortWith(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.dispatchEvent(new Event('abort'));
  }
}

/** The `onabort` handler as a listener: it calls whatever handler is set when the signal aborts. */
class OnabortCaller {
  constructor(private readonly signal: AbortSignal) {}

  handleEvent(ev: Event): unknown {
    return this.signal.onabort?.call(this.signal, ev);
  }
}

/** A listener's exception is reported as uncaught and the others still run, as EventTarget does. */
function call(signal: AbortSignal, listener: AbortListener, event: Event): void {
  try {
    if (typeof listener === 'function') listener.call(signal, event);
    else listener.handleEvent(event);
  } catch (e) {
    process.nextTick(() => {
      throw e;
    });
  }
}

/** An AbortController's members, for one request (see the module's comment). */
export class RequestAbortController {
  readonly signal = new RequestAbortSignal();

  abort(reason?: unknown): void {
    this.signal.abortWith(reason);
  }
}
