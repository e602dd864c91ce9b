/**
 * Per-caller concurrency with a bounded FIFO wait queue. A caller holds at most
 * `concurrency` active slots; further requests wait in arrival order; past the
 * queue bound they are refused with 429. A waiter whose client goes away leaves the
 * queue at once, so no slot is ever handed to a request nobody is waiting for.
 */
import { serviceError } from '../errors.ts';
import { WaiterQueue } from '../sync/waiter-queue.ts';
import type { Caller } from './keys.ts';

export type Release = () => void;

interface Bucket {
  active: number;
  /** Made when a request first has to wait (most callers never do: no queue per request). */
  queue: WaiterQueue<Release> | undefined;
}

/**
 * Idle buckets kept for their callers' next request, at most. A bucket dropped at each release
 * and made again at the next acquire cost every request a Map insert and delete, the delete
 * shrinking the table (a rehash, visible in the daemon's perf profile of a miss); past this many
 * (anonymous callers are told apart by address) an idle bucket is dropped.
 */
const IDLE_BUCKETS_KEPT = 64;

/** How many wait in a bucket's queue. */
const queued = (b: Bucket): number => b.queue?.length ?? 0;
const idle = (b: Bucket): boolean => b.active === 0 && queued(b) === 0;

export interface LimiterStats {
  active: number;
  queued: number;
  callers: Record<string, { active: number; queued: number }>;
}

export class ConcurrencyLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(private readonly opts: { queueLimit: (caller: Caller) => number; retryAfterSeconds: number }) {}

  acquire(caller: Caller, signal?: AbortSignal): Promise<Release> {
    const bucket = this.#bucket(caller.id);
    if (bucket.active < caller.concurrency && queued(bucket) === 0) {
      bucket.active++;
      return Promise.resolve(this.#releaser(caller));
    }
    const limit = this.opts.queueLimit(caller);
    if (queued(bucket) >= limit) {
      return Promise.reject(
        serviceError(
          'queue_full',
          'caller',
          {
            caller:
              caller.keyClass === 'anonymous'
                ? `anonymous callers (limit ${caller.concurrency} active; send an API key for more)`
                : 'this API key',
            active: bucket.active,
            queued: queued(bucket),
          },
          { retryAfter: this.opts.retryAfterSeconds },
        ),
      );
    }
    bucket.queue ??= new WaiterQueue<Release>(() => this.#gc(caller.id, bucket));
    return bucket.queue.wait(undefined, signal);
  }

  stats(): LimiterStats {
    const callers: LimiterStats['callers'] = {};
    let active = 0;
    let waiting = 0;
    for (const [id, b] of this.#buckets) {
      if (idle(b)) continue;
      callers[id] = { active: b.active, queued: queued(b) };
      active += b.active;
      waiting += queued(b);
    }
    return { active, queued: waiting, callers };
  }

  #bucket(id: string): Bucket {
    let b = this.#buckets.get(id);
    if (!b) {
      b = { active: 0, queue: undefined };
      this.#buckets.set(id, b);
    }
    return b;
  }

  #releaser(caller: Caller): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const bucket = this.#bucket(caller.id);
      // The slot passes straight to the next waiter.
      if (!bucket.queue?.grant(this.#releaser(caller))) bucket.active--;
      this.#gc(caller.id, bucket);
    };
  }

  #gc(id: string, b: Bucket): void {
    if (idle(b) && this.#buckets.size > IDLE_BUCKETS_KEPT) this.#buckets.delete(id);
  }

  /** Buckets held, idle ones included (at most IDLE_BUCKETS_KEPT of those). */
  get buckets(): number {
    return this.#buckets.size;
  }
}
