/**
 * The mechanism of a pool, after undici's pool-base/pool split: it knows nothing of Lean.
 * It spawns, hands out and retires resources that satisfy a small `Poolable` interface,
 * keeps the FIFO waiters (the shared WaiterQueue), the accounting, the start backoff and
 * the close/destroy lifecycle. Every decision about *which* idle resource serves a
 * request and *when* one retires is the injected `PoolPolicy`'s.
 *
 * Retirement is only ever between requests: `release` asks the policy, and a resource it
 * retires is idle by construction. A soft retirement first warms a replacement (when the
 * caps leave room), keeps serving from the old resource meanwhile, and retires it once
 * the replacement is ready, so throughput does not dip. Only `destroy(r)` (a fault, a
 * deadline past its grace) and `destroy()` of the whole pool kill a busy resource.
 */
import { LeanStartError, PoolClosedError } from '../errors.ts';
import type { Log } from '../../log.ts';
import { WaiterQueue } from '../../sync/waiter-queue.ts';

export interface Usage {
  rssBytes: number;
  cpuSeconds: number;
}

/** What a pool needs of a resource (a warm Lean session, or a test double). */
export interface Poolable {
  readonly id: number;
  /** False once it cannot serve another request (its process died, a request broke it). */
  readonly healthy: boolean;
  /** Requests served since spawn. */
  readonly uses: number;
  /** States the resource accumulates and never frees (REPL commands since spawn). */
  readonly states: number;
  /**
   * Its usage now. With `rssBound`, `rssBytes` may be an earlier reading, as long as memory cannot
   * have grown past `rssBound` since it (so a comparison with `rssBound` comes out as on a fresh one).
   */
  usage(rssBound?: number): Usage;
  /** Retire an idle resource; resolves once it is gone (its memory freed). */
  close(reason: string): Promise<void>;
  /** Kill now, even mid-request; resolves once it is gone. */
  destroy(reason: string): Promise<void>;
}

/** The decisions of a pool. `Q` is what a request says about itself (for affinity). */
export interface PoolPolicy<R extends Poolable, Q> {
  /** Index of the idle resource to hand to `request` (all of `idle` can serve it). */
  choose(idle: readonly R[], request: Q): number;
  /** After a request: a reason to retire `r`, or undefined to keep it. */
  retire(r: R, usage: Usage): string | undefined;
  /**
   * The only memory figure `retire` compares `rssBytes` with (Infinity: it never reads it), for
   * `usage(rssBound)` after each request; absent, memory is read afresh after every request.
   */
  readonly rssBound?: number;
}

/** What the gate sees of a pool. */
export interface GatedPool {
  readonly name: string;
  readonly size: number;
  /** Its waiting requests that no idle or starting resource will serve: each needs a slot. */
  readonly needs: number;
  /** Its resources that serve or will serve: idle, busy, and starts under way that were not cancelled. */
  readonly serving: number;
  /** Its resources retired and not yet exited: slots on their way back. */
  readonly exiting: number;
  /** When (in the order of arrival across pools) its oldest waiter that needs a slot came; undefined when none does. */
  oldestNeed(): number | undefined;
  /** When (in release order, see `useOrder`) the least recently used idle resource went idle. */
  oldestIdle(): number | undefined;
  evictOne(reason: string): boolean;
  /** Cancel a start none of its own waiters needs; false when there is none. */
  cancelStart(reason: string): boolean;
  kick(): void;
}

/**
 * Process caps shared by several pools (the agent's). The gate counts the pools' `size`,
 * which grows the moment a start begins, so asking and starting need no reservation.
 */
export interface SlotGate {
  /**
   * Whether `pool` may start one more resource now; when not, the gate may free one elsewhere and `kick` the pool later.
   * A start no request waits for (minWarm, a replacement) never takes a slot another pool's waiting requests need.
   */
  mayStart(pool: GatedPool): boolean;
  /** A resource of `pool` is gone (or never started), or idle with no request of its own waiting: a slot is free or can be freed. */
  freed(pool: GatedPool): void;
  /**
   * Whether `pool`, releasing a resource while its own requests wait (the oldest since `arrival`), should give
   * it up instead: the caps are full and another pool's request that needs a slot came first.
   */
  yields?(pool: GatedPool, arrival: number): boolean;
}

export interface PoolOptions<R extends Poolable, Q> {
  name: string;
  /** Start one. When it fails, or `signal` aborts it, the promise rejects once its process is gone (until then it holds a slot). */
  spawn: (signal: AbortSignal) => Promise<R>;
  policy: PoolPolicy<R, Q>;
  /** Resources kept ready (not counting ones about to retire). */
  minWarm: number;
  maxSize: number;
  /** Retire idle resources above minWarm after this long idle (0: never). */
  idleMs: number;
  log: Log;
  gate?: SlotGate;
  /** How many retirements `stats()` remembers. */
  history?: number;
  /** Whether this pool's start failures make the whole environment unavailable (default true; false for a request's own header). */
  decidesAvailability?: boolean;
}

export interface Retirement {
  id: number;
  reason: string;
  at: string;
  uses: number;
  states: number;
  rssMb?: number;
}

export interface SessionInfo {
  id: number;
  state: 'warm' | 'busy' | 'retiring';
  uses: number;
  states: number;
  rssMb: number;
}

export interface PoolStats {
  warm: number;
  busy: number;
  starting: number;
  /** Marked for retirement (waiting for a replacement) or killed and not yet exited. */
  retiring: number;
  waiting: number;
  created: number;
  retired: number;
  /** Retirements by kind (the reason up to its parenthesised detail), since the pool started. */
  retiredBy: Record<string, number>;
  failedStarts: number;
  lastStartError?: string;
  sessions: SessionInfo[];
  lastRetirements: Retirement[];
}

/**
 * Release order, shared by every pool of the process: which idle resource was used least recently,
 * across pools, is a comparison of these (a clock in milliseconds ties between quick requests).
 */
let useOrder = 0;

interface Entry<R> {
  r: R;
  /** When it went idle (Date.now), for the idle timeout. */
  idleSince: number;
  /** Its place in release order (`useOrder`), for the choice of which idle resource is evicted. */
  idleSeq: number;
  /** Set when the policy retired it and a replacement is warming. */
  draining: string | undefined;
  rssBytes: number | undefined;
}

type Lifecycle = 'open' | 'closing' | 'destroyed';

/**
 * The busy entries, as a list rather than a Map: a pool holds a handful, and a Map emptied by its
 * last delete shrinks its table (a runtime call and a new table on every request's release), where
 * a list's `pop` leaves its room (and a splice would make a list of what it removed). In the order
 * they became busy, as the Map kept them (status lists them so).
 */
class BusyList<R> {
  readonly #entries: Entry<R>[] = [];

  get size(): number {
    return this.#entries.length;
  }

  get(r: R): Entry<R> | undefined {
    const i = this.#indexOf(r);
    return i < 0 ? undefined : this.#entries[i];
  }

  add(e: Entry<R>): void {
    this.#entries.push(e);
  }

  delete(r: R): void {
    const list = this.#entries;
    const i = this.#indexOf(r);
    if (i < 0) return;
    for (let j = i; j < list.length - 1; j++) list[j] = list[j + 1]!;
    list.pop();
  }

  #indexOf(r: R): number {
    const list = this.#entries;
    for (let i = 0; i < list.length; i++) if (list[i]!.r === r) return i;
    return -1;
  }

  values(): readonly Entry<R>[] {
    return this.#entries;
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class Pool<R extends Poolable, Q> implements GatedPool {
  #idle: Entry<R>[] = [];
  #busy = new BusyList<R>();
  #starting = 0;
  /** Replacements being warmed for draining resources. */
  #replacing = 0;
  /** Each start under way (its abort), oldest first. */
  #starts: AbortController[] = [];
  /** Starts cancelled and not yet over: their processes still count. */
  #cancelled = new Set<AbortController>();
  /** Retired, not yet exited: they still hold memory, so they still count. */
  #exiting = 0;
  #waiters: WaiterQueue<R, Q>;
  #state: Lifecycle = 'open';
  #done: Promise<void> | undefined;
  #resolveDone: (() => void) | undefined;
  #backoffMs = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #counts = { created: 0, retired: 0, failedStarts: 0, lastStartError: undefined as string | undefined };
  #history: Retirement[] = [];
  #retiredBy: Record<string, number> = {};

  constructor(readonly opts: PoolOptions<R, Q>) {
    this.#waiters = new WaiterQueue<R, Q>(() => this.#settle());
    if (opts.idleMs > 0) {
      this.#idleTimer = setInterval(() => this.#evictIdle(), Math.max(10, Math.min(opts.idleMs / 2, 5000)));
      this.#idleTimer.unref();
    }
  }

  get name(): string {
    return this.opts.name;
  }

  /** Processes this pool holds: every one counts against the caps until it has exited. */
  get size(): number {
    return this.#idle.length + this.#busy.size + this.#starting + this.#exiting;
  }

  /** Resources that serve or will serve (not draining, not exiting). */
  get #live(): number {
    let draining = 0;
    for (const e of this.#idle) if (e.draining) draining++;
    for (const e of this.#busy.values()) if (e.draining) draining++;
    return this.#idle.length + this.#busy.size + this.#starting - draining;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  get closed(): boolean {
    return this.#state !== 'open';
  }

  /** The release order of the least recently used idle resource (for the agent's choice of which pool gives one up). */
  oldestIdle(): number | undefined {
    let t: number | undefined;
    for (const e of this.#idle) if (t === undefined || e.idleSeq < t) t = e.idleSeq;
    return t;
  }

  /** Starts under way that will serve (not cancelled). */
  get #coming(): number {
    return this.#starting - this.#cancelled.size;
  }

  get exiting(): number {
    return this.#exiting + this.#cancelled.size;
  }

  get serving(): number {
    return this.#idle.length + this.#busy.size + this.#coming;
  }

  /** Begin warming `minWarm` resources in the background. */
  start(): void {
    this.#fill();
  }

  acquire(request: Q, signal?: AbortSignal): Promise<R> {
    if (this.#state !== 'open') return Promise.reject(new PoolClosedError(this.opts.name));
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Starts are failing and nothing is alive: say so now instead of at the caller's deadline.
    if (this.#retryTimer && this.#idle.length + this.#busy.size + this.#starting === 0) {
      return Promise.reject(this.#startError(this.#counts.lastStartError ?? 'unknown error'));
    }
    if (this.#waiters.length === 0) {
      const r = this.#take(request);
      if (r) return Promise.resolve(r);
    }
    const p = this.#waiters.wait(request, signal);
    this.#grow();
    return p;
  }

  /** Return a resource after a request; the policy decides whether it retires (now or after a replacement warms). */
  release(r: R): void {
    const e = this.#busy.get(r);
    if (!e) return;
    // It stays counted (in busy) while a replacement is considered, so the caps see it.
    const why = r.healthy && !e.draining ? this.#retireReason(e) : undefined;
    const replacing = why !== undefined && this.#state === 'open' && this.#tryReplace();
    this.#busy.delete(r);
    if (!r.healthy) {
      this.#retire(e, 'unhealthy', false);
    } else if (e.draining) {
      // A replacement is still warming: keep serving; otherwise it is the one that goes now.
      if (this.#replacing > 0 && this.#state === 'open') this.#makeIdle(e);
      else this.#retire(e, e.draining, false);
    } else {
      if (!why) this.#makeIdle(e);
      else if (replacing) {
        e.draining = why;
        this.opts.log.debug(
          { pool: this.opts.name, session: r.id, reason: why },
          'session draining; replacement warming',
        );
        this.#makeIdle(e);
      } else {
        this.#retire(e, why, false);
      }
    }
    this.#yieldToOlder();
    this.#dispatch();
    this.#fill();
    this.#settle();
    // An idle process here may be what another key's waiting request needs (the gate decides).
    if (this.#idle.length > 0) this.opts.gate?.freed(this);
  }

  /**
   * First come, first served across headers at the cap: a resource released while this pool's requests wait
   * would go to them at once, and another header's request, waiting for a slot since before them, would
   * wait on for as long as this pool's queue is never empty (its deadline, under steady load). It retires
   * instead, and its slot goes to that request (the gate gives a freed slot to the oldest need).
   */
  #yieldToOlder(): void {
    const arrival = this.#waiters.oldestArrival();
    if (arrival === undefined || this.#idle.length === 0 || !this.opts.gate?.yields?.(this, arrival)) return;
    this.evictOne('cap: its slot went to an older request of another header');
  }

  /** When the oldest waiter that no idle or starting resource will serve came, if there is one. */
  oldestNeed(): number | undefined {
    return this.needs > 0 ? this.#waiters.oldestArrival() : undefined;
  }

  #retireReason(e: Entry<R>): string | undefined {
    const u = e.r.usage(this.opts.policy.rssBound);
    e.rssBytes = u.rssBytes;
    return this.opts.policy.retire(e.r, u);
  }

  /** Kill a resource now (a fault, a deadline past its grace), busy or idle, and replace it in the background. */
  destroy(r: R, reason = 'destroyed'): void {
    let e = this.#busy.get(r);
    if (e) this.#busy.delete(r);
    else {
      const i = this.#idle.findIndex((x) => x.r === r);
      if (i < 0) return;
      e = this.#idle.splice(i, 1)[0]!;
    }
    this.#retire(e, reason, true);
    this.#fill();
  }

  /** Retire the longest-idle resource, even below minWarm (the agent needs its slot for another key). */
  evictOne(reason: string): boolean {
    if (this.#idle.length === 0) return false;
    let best = 0;
    for (let i = 1; i < this.#idle.length; i++) {
      const a = this.#idle[i]!;
      const b = this.#idle[best]!;
      // Draining ones first, then the longest idle.
      if ((a.draining ? 0 : 1) - (b.draining ? 0 : 1) < 0 || (!!a.draining === !!b.draining && a.idleSeq < b.idleSeq))
        best = i;
    }
    const [e] = this.#idle.splice(best, 1);
    this.#retire(e!, reason, false);
    return true;
  }

  /**
   * Cancel a start that none of this pool's waiters needs (minWarm, a replacement), the newest
   * first (it has the least done): another key's waiting request needs its slot. Its process is
   * gone when the start is over (the spawn function's promise settles after its exit).
   */
  cancelStart(reason: string): boolean {
    if (this.#coming <= this.#waiters.length) return false;
    const own = this.#starts.findLast((c) => !this.#cancelled.has(c));
    if (!own) return false;
    this.#cancelled.add(own);
    own.abort(new Error(reason));
    return true;
  }

  /** A slot may have freed (the gate calls this): start what the waiters or minWarm need. */
  kick(): void {
    this.#fill();
    this.#grow();
  }

  /** Waiters that no idle or starting resource will serve: each needs a slot. */
  get needs(): number {
    if (this.#state === 'destroyed' || this.#idle.length > 0) return 0;
    return Math.max(0, this.#waiters.length - this.#coming);
  }

  stats(): PoolStats {
    const sessions: SessionInfo[] = [];
    // Read now (a /proc read per process): status shows what each holds at this moment.
    const info = (e: Entry<R>, state: SessionInfo['state']) =>
      sessions.push({
        id: e.r.id,
        state: e.draining ? 'retiring' : state,
        uses: e.r.uses,
        states: e.r.states,
        rssMb: Math.round(e.r.usage().rssBytes / 2 ** 20),
      });
    for (const e of this.#idle) info(e, 'warm');
    for (const e of this.#busy.values()) info(e, 'busy');
    const draining = sessions.filter((s) => s.state === 'retiring').length;
    return {
      warm: this.#idle.filter((e) => !e.draining).length,
      busy: this.#busy.size,
      starting: this.#starting,
      retiring: draining + this.#exiting,
      waiting: this.#waiters.length,
      created: this.#counts.created,
      retired: this.#counts.retired,
      retiredBy: { ...this.#retiredBy },
      failedStarts: this.#counts.failedStarts,
      ...(this.#counts.lastStartError ? { lastStartError: this.#counts.lastStartError } : {}),
      sessions,
      lastRetirements: [...this.#history],
    };
  }

  /**
   * Refuse new requests; queued ones are still served (sessions are started for them if
   * needed); then every resource retires. Resolves when all have exited. Idempotent.
   */
  close(): Promise<void> {
    if (this.#state === 'open') {
      this.#state = 'closing';
      this.#stopTimers();
    }
    const done = this.#whenDone();
    this.#settle();
    return done;
  }

  /** Fail queued requests and kill everything now, busy resources included. Idempotent. */
  destroyAll(): Promise<void> {
    if (this.#state !== 'destroyed') {
      this.#state = 'destroyed';
      this.#stopTimers();
      for (const c of this.#starts) c.abort(new Error('pool destroyed'));
      this.#waiters.failAll(new PoolClosedError(this.opts.name));
      for (const e of this.#idle.splice(0)) this.#retire(e, 'shutdown', true);
      for (const e of [...this.#busy.values()]) {
        this.#busy.delete(e.r);
        this.#retire(e, 'shutdown', true);
      }
    }
    const done = this.#whenDone();
    this.#settle();
    return done;
  }

  #whenDone(): Promise<void> {
    this.#done ??= new Promise<void>((resolve) => {
      this.#resolveDone = resolve;
    });
    return this.#done;
  }

  /** After any change: in `closing`, retire what no queued request needs; resolve `done` once nothing is left. */
  #settle(): void {
    if (this.#state === 'open') return;
    if (this.#waiters.length === 0) for (const e of this.#idle.splice(0)) this.#retire(e, 'shutdown', false);
    if (this.size === 0) this.#resolveDone?.();
  }

  #stopTimers(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    clearInterval(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #makeIdle(e: Entry<R>): void {
    e.idleSince = Date.now();
    e.idleSeq = ++useOrder;
    this.#idle.push(e);
  }

  /** The policy's pick among idle resources; draining ones only when nothing else is idle. */
  #take(request: Q): R | undefined {
    if (this.#idle.length === 0) return undefined;
    // One idle resource is the pick whatever the policy says (its index is 0): no lists to build for it.
    if (this.#idle.length === 1) return this.#busyAt(0);
    const fresh = this.#idle.filter((e) => !e.draining);
    const pool = fresh.length > 0 ? fresh : this.#idle;
    const i = this.opts.policy.choose(
      pool.map((e) => e.r),
      request,
    );
    return this.#busyAt(this.#idle.indexOf(pool[i] ?? pool[pool.length - 1]!));
  }

  /** The idle entry at `i` made busy. */
  #busyAt(i: number): R {
    // The last (the most recently released, and the only one when one is idle) is popped: a splice makes a list.
    const e = i === this.#idle.length - 1 ? this.#idle.pop()! : this.#idle.splice(i, 1)[0]!;
    this.#busy.add(e);
    return e.r;
  }

  #dispatch(): void {
    while (this.#waiters.length > 0 && this.#idle.length > 0) {
      const r = this.#take(this.#waiters.peek() as Q)!;
      this.#waiters.grant(r);
    }
  }

  #hasRoom(): boolean {
    return this.size < this.opts.maxSize && (this.opts.gate?.mayStart(this) ?? true);
  }

  /** Start resources for waiters that no idle or starting resource will serve. */
  #grow(): void {
    while (this.#state !== 'destroyed' && this.#waiters.length > this.#coming && this.#hasRoom()) this.#spawn(false);
  }

  /** Keep `minWarm` live resources (in `open`), and enough for the waiters. */
  #fill(): void {
    if (this.#state === 'destroyed' || this.#retryTimer) return;
    while (this.#state === 'open' && this.#live < this.opts.minWarm && this.#hasRoom()) this.#spawn(false);
    this.#grow();
  }

  /** Start a replacement for a draining resource, if the caps leave room. */
  #tryReplace(): boolean {
    if (this.#retryTimer || !this.#hasRoom()) return false;
    this.#spawn(true);
    return true;
  }

  #spawn(replacement: boolean): void {
    this.#starting++;
    if (replacement) this.#replacing++;
    const t0 = performance.now();
    // Its own signal: `destroyAll` aborts every start, `cancelStart` one no request waits for.
    const own = new AbortController();
    this.#starts.push(own);
    this.opts.spawn(own.signal).then(
      (r) => {
        this.#startSettled(own, replacement);
        this.#started(r, t0);
      },
      (err: unknown) => {
        const cancelled = this.#startSettled(own, replacement);
        if (cancelled && this.#state !== 'destroyed') this.#startCancelled(err);
        else this.#startFailed(err);
      },
    );
  }

  /** A start is over (either way): its accounting undone. Whether it was cancelled. */
  #startSettled(own: AbortController, replacement: boolean): boolean {
    this.#starting--;
    if (replacement) this.#replacing--;
    this.#starts.splice(this.#starts.indexOf(own), 1);
    return this.#cancelled.delete(own);
  }

  #started(r: R, t0: number): void {
    this.#counts.created++;
    this.#backoffMs = 0;
    this.opts.log.info(
      { pool: this.opts.name, session: r.id, startMs: Math.round(performance.now() - t0) },
      'lean session ready',
    );
    const e: Entry<R> = { r, idleSince: Date.now(), idleSeq: ++useOrder, draining: undefined, rssBytes: undefined };
    if (this.#state === 'destroyed') {
      this.#retire(e, 'shutdown', true);
      return;
    }
    this.#idle.push(e);
    // The replacement is warm: the idle draining resources can go now (busy ones go at release).
    if (this.#replacing === 0)
      for (const d of this.#idle.filter((x) => x.draining))
        this.#retire(this.#idle.splice(this.#idle.indexOf(d), 1)[0]!, d.draining!, false);
    this.#dispatch();
    this.#settle();
    // Ready with nobody of its own waiting: another key's waiting request may need its slot (the gate decides).
    if (this.#idle.length > 0) this.opts.gate?.freed(this);
  }

  /** A start the gate cancelled for another key's waiting request: not a failure (no backoff); its slot is free. */
  #startCancelled(err: unknown): void {
    this.opts.log.info({ pool: this.opts.name, reason: errorText(err) }, 'lean session start cancelled');
    this.#undrain();
    this.opts.gate?.freed(this);
    // Asked again once the waiting key has its start: refused while the caps are full, it is kicked when a slot frees.
    this.#fill();
    this.#settle();
  }

  #startFailed(err: unknown): void {
    this.#counts.failedStarts++;
    this.opts.gate?.freed(this);
    const msg = errorText(err);
    this.#counts.lastStartError = msg;
    if (this.#state === 'destroyed') return this.#settle();
    this.opts.log.error({ pool: this.opts.name, err: msg }, 'lean session failed to start');
    // Nothing alive to serve the waiters: fail them now rather than let them wait for their deadline.
    if (this.#idle.length + this.#busy.size + this.#starting === 0) {
      this.#waiters.failAll(this.#startError(msg));
    }
    this.#undrain();
    // Retry with backoff (1 s doubling to 60 s) so a broken toolchain is not a hot loop.
    this.#backoffMs = Math.min(60_000, this.#backoffMs ? this.#backoffMs * 2 : 1000);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#fill();
    }, this.#backoffMs);
    this.#retryTimer.unref();
    this.#settle();
  }

  /**
   * No replacement is coming: the draining resources are ordinary again, and the policy decides anew
   * at their next release (retiring at once when the caps leave no room to replace).
   */
  #undrain(): void {
    if (this.#replacing === 0) for (const d of [...this.#idle, ...this.#busy.values()]) d.draining = undefined;
  }

  #startError(msg: string): LeanStartError {
    return new LeanStartError(this.opts.name, msg, { environmentWide: this.opts.decidesAvailability ?? true });
  }

  #retire(e: Entry<R>, reason: string, kill: boolean): void {
    this.#counts.retired++;
    // The reason up to its first `(` (its detail), trailing spaces dropped; a scan, not `/\s*\(.*$/s`,
    // whose every start in a run of spaces rescans the run.
    const paren = reason.indexOf('(');
    const kind = (paren < 0 ? reason : reason.slice(0, paren)).trimEnd();
    this.#retiredBy[kind] = (this.#retiredBy[kind] ?? 0) + 1;
    this.#exiting++;
    this.#history.push({
      id: e.r.id,
      reason,
      at: new Date().toISOString(),
      uses: e.r.uses,
      states: e.r.states,
      ...(e.rssBytes === undefined ? {} : { rssMb: Math.round(e.rssBytes / 2 ** 20) }),
    });
    if (this.#history.length > (this.opts.history ?? 10)) this.#history.shift();
    this.opts.log.debug({ pool: this.opts.name, session: e.r.id, reason }, 'session retired');
    const gone = kill ? e.r.destroy(reason) : e.r.close(reason);
    void gone
      .catch(() => {})
      .then(() => {
        this.#exiting--;
        this.opts.gate?.freed(this);
        this.#fill();
        this.#settle();
      });
  }

  #evictIdle(): void {
    if (this.#state !== 'open') return;
    const now = Date.now();
    // Longest idle first, while above minWarm.
    const expired = this.#idle
      .filter((e) => now - e.idleSince >= this.opts.idleMs)
      .sort((a, b) => a.idleSince - b.idleSince);
    for (const e of expired) {
      if (this.#live <= this.opts.minWarm && !e.draining) break;
      this.#idle.splice(this.#idle.indexOf(e), 1);
      this.#retire(e, 'idle', false);
    }
  }
}
