/**
 * Fair sharing of the worker threads between callers (key B's trivial
 * request waited behind two heavy requests of key A, the pool being first come, first
 * served). Work waits in one queue per caller; a freed thread goes to the waiting caller with
 * the fewest tasks running (ties: the one whose turn is oldest, round robin). A few reserve
 * threads serve only callers with nothing running, so a newcomer starts at once even when
 * another caller holds every regular thread (the OS then shares the cores between them);
 * each task's CPU stays bounded by its deadline (the pool terminates a task's thread on abort).
 */

interface Waiter {
  grant: () => void;
  reject: (e: unknown) => void;
}

export class FairScheduler {
  /** Waiting work per caller; the Map's order is the round-robin order (a served caller moves to the end). */
  readonly #queues = new Map<string, Waiter[]>();
  readonly #runningBy = new Map<string, number>();
  #running = 0;

  /** `slots` regular threads, plus `reserve` for callers with nothing running. */
  constructor(
    readonly slots: number,
    readonly reserve: number,
  ) {}

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    let n = 0;
    for (const q of this.#queues.values()) n += q.length;
    return n;
  }

  /** Resolves with a release function once `caller` may start a task; rejects if `signal` aborts first. */
  acquire(caller: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#mayStart(caller)) return Promise.resolve(this.#start(caller));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#start(caller));
        },
        reject,
      };
      const onAbort = () => {
        const q = this.#queues.get(caller);
        const i = q?.indexOf(waiter) ?? -1;
        if (q && i >= 0) q.splice(i, 1);
        if (q?.length === 0) this.#queues.delete(caller);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const q = this.#queues.get(caller);
      if (q) q.push(waiter);
      else this.#queues.set(caller, [waiter]);
    });
  }

  /** A regular thread is free and nobody waits, or a reserve one is and the caller runs nothing. */
  #mayStart(caller: string): boolean {
    if (this.#running < this.slots && this.queued === 0) return true;
    return this.#running < this.slots + this.reserve && !this.#runningBy.get(caller);
  }

  #start(caller: string): () => void {
    this.#running++;
    this.#runningBy.set(caller, (this.#runningBy.get(caller) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      const left = this.#runningBy.get(caller)! - 1;
      if (left === 0) this.#runningBy.delete(caller);
      else this.#runningBy.set(caller, left);
      this.#dispatch();
    };
  }

  /** Hands free threads to waiting callers: fewest running first, then round robin. */
  #dispatch(): void {
    for (;;) {
      let best: string | undefined;
      let bestRunning = Infinity;
      for (const caller of this.#queues.keys()) {
        const r = this.#runningBy.get(caller) ?? 0;
        if (r < bestRunning) [best, bestRunning] = [caller, r];
      }
      if (best === undefined) return;
      const free = this.#running < this.slots || (bestRunning === 0 && this.#running < this.slots + this.reserve);
      if (!free) return;
      const q = this.#queues.get(best)!;
      const waiter = q.shift()!;
      // Served: its next task waits for its next turn.
      this.#queues.delete(best);
      if (q.length > 0) this.#queues.set(best, q);
      waiter.grant();
    }
  }
}
