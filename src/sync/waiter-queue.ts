/**
 * A FIFO queue of waiters, each bounded by its own AbortSignal: the one waiting
 * primitive of the daemon, shared by the admission limiter (a slot per caller), the
 * Lean session pools (a warm session) and jobs waiting for an equal run
 * (src/backend/runs-in-flight.ts). A waiter whose signal aborts leaves the queue at
 * once (O(1): the queue is an insertion-ordered Set), so nothing is ever handed to a
 * request nobody waits for.
 */

interface Entry<T, D> {
  data: D;
  /** Its place in the order of arrival across every queue (`oldestArrival`). */
  arrival: number;
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/** Arrivals counted across all queues, so that waiters of different queues compare by who came first. */
let arrivals = 0;

export class WaiterQueue<T, D = undefined> {
  readonly #entries = new Set<Entry<T, D>>();

  /** Called after a waiter left the queue because its signal aborted. */
  constructor(private readonly onLeave?: () => void) {}

  get length(): number {
    return this.#entries.size;
  }

  /** Wait in line; rejects with the signal's reason if it aborts first. */
  wait(data: D, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const entry: Entry<T, D> = {
        data,
        arrival: ++arrivals,
        resolve,
        reject,
        signal,
        onAbort: () => {
          if (!this.#entries.delete(entry)) return;
          reject(signal!.reason);
          this.onLeave?.();
        },
      };
      this.#entries.add(entry);
      signal?.addEventListener('abort', entry.onAbort, { once: true });
    });
  }

  /** When (in the order of arrival across queues) the waiter at the head came, if any. */
  oldestArrival(): number | undefined {
    return this.#first()?.arrival;
  }

  /** The data of the waiter at the head, if any. */
  peek(): D | undefined {
    return this.#first()?.data;
  }

  /** The data of every waiter, in order of arrival. */
  *waiting(): IterableIterator<D> {
    for (const e of this.#entries) yield e.data;
  }

  /** Hand `value` to the waiter at the head; false when nobody waits. */
  grant(value: T): boolean {
    const e = this.#take();
    if (!e) return false;
    e.resolve(value);
    return true;
  }

  /** Fail the waiter at the head; false when nobody waits. */
  failOne(err: unknown): boolean {
    const e = this.#take();
    if (!e) return false;
    e.reject(err);
    return true;
  }

  /** Fail every waiter (in order). */
  failAll(err: unknown): void {
    while (this.failOne(err));
  }

  #first(): Entry<T, D> | undefined {
    for (const e of this.#entries) return e;
    return undefined;
  }

  #take(): Entry<T, D> | undefined {
    const e = this.#first();
    if (!e) return undefined;
    this.#entries.delete(e);
    e.signal?.removeEventListener('abort', e.onAbort);
    return e;
  }
}
