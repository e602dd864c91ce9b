/**
 * The warm sessions of one environment. Waiters are served in FIFO order, each bounded by
 * its own signal (the request deadline or a disconnect); an idle session that already
 * holds the longest prefix of the request is preferred; retired or dead sessions are
 * replaced in the background to keep `minWarm` ready.
 *
 * Why not generic-pool: it hands out whichever idle resource is next and offers no way
 * to choose one, and choosing the session with the request's prefix is what makes
 * prefix reuse pay. Everything else it would give (min/max, FIFO waiters with timeouts,
 * validate-on-return, drain) is the ~150 lines below.
 */
import { ServiceError } from '../../errors.ts';
import type { Log } from '../../log.ts';
import type { LeanSession } from '../session/session.ts';

export interface PoolOptions {
  name: string;
  minWarm: number;
  maxSize: number;
  /** Retire a session after this many requests. */
  maxUses: number;
  /** Retire a session whose process tree is above this many bytes after a request. */
  maxRssBytes: number;
  /** Retire a session past 80% of its CPU-seconds limit, before RLIMIT_CPU kills it mid-request (0: none). */
  maxCpuSeconds?: number;
  create: (signal: AbortSignal) => Promise<LeanSession>;
  log: Log;
}

export interface PoolStats {
  idle: number;
  busy: number;
  starting: number;
  waiting: number;
  created: number;
  retired: number;
  failedStarts: number;
  lastStartError?: string;
}

/** Scores an idle session for a request: higher is better (the length of the prefix it holds). */
export type Score = (s: LeanSession) => number;

interface Waiter {
  score: Score;
  resolve: (s: LeanSession) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class SessionPool {
  #idle: LeanSession[] = [];
  #busy = new Set<LeanSession>();
  #starting = 0;
  #waiters: Waiter[] = [];
  #closed = false;
  #stats = { created: 0, retired: 0, failedStarts: 0, lastStartError: undefined as string | undefined };
  #startCtrl = new AbortController();
  #backoffMs = 0;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: PoolOptions) {}

  /** Begin warming `minWarm` sessions in the background. */
  start(): void {
    this.#fill();
  }

  get size(): number {
    return this.#idle.length + this.#busy.size + this.#starting;
  }

  acquire(score: Score, signal?: AbortSignal): Promise<LeanSession> {
    if (this.#closed) return Promise.reject(new ServiceError('overloaded', `the ${this.opts.name} pool is shutting down`));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#waiters.length === 0) {
      const s = this.#takeBest(score);
      if (s) return Promise.resolve(s);
    }
    return new Promise<LeanSession>((resolve, reject) => {
      const waiter: Waiter = {
        score,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#grow();
    });
  }

  /** Return a session after a request. Unhealthy, worn or heavy sessions are retired and replaced. */
  release(s: LeanSession): void {
    if (!this.#busy.delete(s)) return;
    const u = s.healthy && s.rssCheckDue() ? s.usage() : undefined;
    const heavy = u !== undefined && this.opts.maxRssBytes > 0 && u.rssBytes > this.opts.maxRssBytes;
    const tired = u !== undefined && (this.opts.maxCpuSeconds ?? 0) > 0 && u.cpuSeconds > 0.8 * this.opts.maxCpuSeconds!;
    if (this.#closed || !s.healthy || s.uses >= this.opts.maxUses || heavy || tired) {
      this.#retire(s, !s.healthy ? 'unhealthy' : s.uses >= this.opts.maxUses ? 'max uses' : this.#closed ? 'closing' : heavy ? 'memory' : 'cpu time');
    } else {
      this.#idle.push(s);
    }
    this.#dispatch();
    this.#fill();
  }

  /** Kill a session now (deadline, fault) and replace it in the background. */
  destroy(s: LeanSession): void {
    this.#busy.delete(s);
    const i = this.#idle.indexOf(s);
    if (i >= 0) this.#idle.splice(i, 1);
    this.#retire(s, 'destroyed');
    this.#fill();
  }

  stats(): PoolStats {
    return {
      idle: this.#idle.length,
      busy: this.#busy.size,
      starting: this.#starting,
      waiting: this.#waiters.length,
      created: this.#stats.created,
      retired: this.#stats.retired,
      failedStarts: this.#stats.failedStarts,
      ...(this.#stats.lastStartError ? { lastStartError: this.#stats.lastStartError } : {}),
    };
  }

  /** Refuse new work, fail waiters, kill idle sessions; busy ones are killed on release. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#startCtrl.abort(new Error('pool closed'));
    for (const w of this.#waiters.splice(0)) {
      w.signal?.removeEventListener('abort', w.onAbort);
      w.reject(new ServiceError('overloaded', `the ${this.opts.name} pool is shutting down`));
    }
    const idle = this.#idle.splice(0);
    for (const s of idle) this.#retire(s, 'closing');
    await Promise.all(idle.map((s) => s.exited));
  }

  /** Kill everything, busy sessions included. */
  async destroyAll(): Promise<void> {
    await this.close();
    const busy = [...this.#busy];
    for (const s of busy) this.#retire(s, 'destroyAll');
    this.#busy.clear();
    await Promise.all(busy.map((s) => s.exited));
  }

  #takeBest(score: Score): LeanSession | undefined {
    if (this.#idle.length === 0) return undefined;
    // Highest score wins; among equals the most recently used (end of the list), which is warmest.
    let best = this.#idle.length - 1;
    let bestScore = score(this.#idle[best]!);
    for (let i = this.#idle.length - 2; i >= 0; i--) {
      const sc = score(this.#idle[i]!);
      if (sc > bestScore) {
        best = i;
        bestScore = sc;
      }
    }
    const [s] = this.#idle.splice(best, 1);
    this.#busy.add(s!);
    return s;
  }

  #dispatch(): void {
    while (this.#waiters.length > 0 && this.#idle.length > 0) {
      const w = this.#waiters.shift()!;
      w.signal?.removeEventListener('abort', w.onAbort);
      w.resolve(this.#takeBest(w.score)!);
    }
  }

  /** Start sessions for waiters that no idle or starting session will serve. */
  #grow(): void {
    while (!this.#closed && this.#waiters.length > this.#starting && this.size < this.opts.maxSize) this.#create();
  }

  /** Keep `minWarm` sessions, and enough for the waiters. */
  #fill(): void {
    if (this.#closed || this.#retryTimer) return;
    while (this.size < this.opts.minWarm) this.#create();
    this.#grow();
  }

  #create(): void {
    this.#starting++;
    const t0 = performance.now();
    this.opts.create(this.#startCtrl.signal).then(
      (s) => {
        this.#starting--;
        this.#stats.created++;
        this.#backoffMs = 0;
        this.opts.log.info({ pool: this.opts.name, session: s.id, pid: s.pid, startMs: Math.round(performance.now() - t0) }, 'lean session ready');
        if (this.#closed) {
          this.#retire(s, 'closing');
          return;
        }
        this.#idle.push(s);
        this.#dispatch();
      },
      (e: unknown) => {
        this.#starting--;
        this.#stats.failedStarts++;
        const msg = e instanceof Error ? e.message : String(e);
        this.#stats.lastStartError = msg;
        this.opts.log.error({ pool: this.opts.name, err: msg }, 'lean session failed to start');
        if (this.#closed) return;
        // Nothing alive to serve the waiters: fail them now rather than let them wait for their deadline.
        if (this.size === 0) {
          for (const w of this.#waiters.splice(0)) {
            w.signal?.removeEventListener('abort', w.onAbort);
            w.reject(new ServiceError('environment_unavailable', `Lean failed to start for ${this.opts.name}: ${msg}`));
          }
        }
        // Retry with backoff (1 s doubling to 60 s) so a broken toolchain is not a hot loop.
        this.#backoffMs = Math.min(60_000, this.#backoffMs ? this.#backoffMs * 2 : 1000);
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = undefined;
          this.#fill();
        }, this.#backoffMs);
        this.#retryTimer.unref();
      },
    );
  }

  #retire(s: LeanSession, reason: string): void {
    this.#stats.retired++;
    this.opts.log.debug({ pool: this.opts.name, session: s.id, reason }, 'session retired');
    s.kill(reason);
  }
}
