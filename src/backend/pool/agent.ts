/**
 * One pool per (environment, canonical header), the way undici's Agent keeps one pool per
 * origin: a process only ever imports one header, because Lean maps each `.olean` at a
 * fixed address and a second, different header in the same process is copied into
 * ordinary memory instead (several GB more for a Mathlib-sized one).
 *
 * Memory is the scarce resource, so processes are capped per environment and per daemon.
 * The agent is the pools' SlotGate: a pool may start a process while both caps leave room;
 * when they do not and the pool has requests waiting, the least recently used idle process
 * of another key (of the same environment when that cap binds; another header's before an
 * environment's own) is retired to make room, and the waiting pool is kicked once it has
 * exited, or once a process anywhere goes idle. A header other than the environment's own
 * takes one slot so while it has no process, and more only for a stream of its requests (`claim`).
 *
 * Waiters first: warming (minWarm, replacements) never evicts, never takes a slot that
 * another pool's waiting requests need, and a warm start under way gives its slot up (it is
 * cancelled) when a waiting request finds nothing idle to evict. A request for a new header at
 * a full environment is therefore served after an eviction and its own start, and never waits
 * for the own header's warm refill: were the refill to take the freed slot, its sessions would
 * start with nobody left to kick the waiting pool, and the request would wait out its deadline.
 */
import type { GatedPool, Pool, PoolStats, Poolable, SlotGate } from './pool.ts';

export interface AgentCaps {
  /** Processes per environment, all headers together. */
  perEnv: number;
  /** Processes in the daemon, all environments together. */
  total: number;
}

interface Keyed<R extends Poolable, Q> {
  env: string;
  header: string;
  pool: Pool<R, Q>;
  /** Kept when empty (the default header's pool). */
  pinned: boolean;
}

/**
 * The slots a pool's waiting requests may take from other pools (evict an idle process, cancel a start, make a
 * release yield, outrank a warm start): all it needs for the environment's own header (it is kept warm, and every
 * process of another header is taken back for it in the end); for another header one while it has no process
 * that serves or will serve, and all it needs once more than STREAM_DEPTH requests wait per process it has. A
 * burst of a header few requests ask for waits for its one process: a second would cost an import to serve a
 * request or two, and another to bring back the process whose slot it took (an import of Mathlib costs as much as
 * many proofs: docs/rl-workload.md gives the published figures). A stream of them (a dataset under its own header)
 * grows as the environment's own would. Free room (a slot no claim needs) it may always use.
 */
const claim = (e: { pinned: boolean; pool: { needs: number; serving: number; waiting: number } }) => {
  const { needs, serving, waiting } = e.pool;
  if (e.pinned || (serving > 0 && waiting > STREAM_DEPTH * serving)) return needs;
  return Math.min(needs, Math.max(0, 1 - serving));
};
/** Requests waiting per process past which another header's requests are a stream, not a burst. */
const STREAM_DEPTH = 2;

const droppable = (e: { pinned: boolean; pool: { size: number; waiting: number } }) =>
  !e.pinned && e.pool.size === 0 && e.pool.waiting === 0;

/** Empty pools of other headers kept (for their status history) before the oldest empty one is dropped. */
const KEEP_EMPTY = 16;

export class PoolAgent<R extends Poolable, Q> implements SlotGate {
  #pools = new Map<string, Keyed<R, Q>>();
  /** The same pools by environment, then header: found with no key string built (`find`, on every request). */
  #byEnv = new Map<string, Map<string, Keyed<R, Q>>>();
  #byPool = new Map<GatedPool, Keyed<R, Q>>();
  #starved = new Set<GatedPool>();

  constructor(readonly caps: AgentCaps) {}

  /** The pool of (env, header), if there is one. */
  find(env: string, header: string): Pool<R, Q> | undefined {
    return this.#byEnv.get(env)?.get(header)?.pool;
  }

  /** The pool of (env, header), made by `make` on first use. */
  pool(env: string, header: string, make: (gate: SlotGate) => Pool<R, Q>, pinned = false): Pool<R, Q> {
    const k = `${env}\u0000${header}`;
    let e = this.#pools.get(k);
    if (!e) {
      e = { env, header, pool: make(this), pinned };
      this.#pools.set(k, e);
      let headers = this.#byEnv.get(env);
      if (!headers) this.#byEnv.set(env, (headers = new Map()));
      headers.set(header, e);
      this.#byPool.set(e.pool, e);
      e.pool.start();
      this.#dropEmpty();
    }
    return e.pool;
  }

  /** Processes held in `env` (or in the daemon). */
  processes(env?: string): number {
    let n = 0;
    for (const e of this.#pools.values()) if (env === undefined || e.env === env) n += e.pool.size;
    return n;
  }

  mayStart(pool: GatedPool): boolean {
    const me = this.#byPool.get(pool);
    if (!me) return false;
    const envRoom = this.caps.perEnv - this.processes(me.env);
    const allRoom = this.caps.total - this.processes();
    // A start for this pool's own waiters needs a free slot that no request of another pool, come before them,
    // needs (first come, first served across headers); a warm start leaves the slots other pools' waiters need.
    const claims = claim(me);
    const waits = claims > 0;
    const first = pool.oldestNeed() ?? Infinity;
    const fits = waits
      ? envRoom > this.#olderNeeds(me, me.env, first) && allRoom > this.#olderNeeds(me, undefined, first)
      : envRoom > this.#needs(me, me.env) && allRoom > this.#needs(me, undefined);
    if (fits) return true;
    this.#starved.add(pool);
    // Only a request that waits reclaims a process from another key, and only once the exits under way fall short.
    const envFull = envRoom <= 0;
    if (waits && claims > this.#exiting(envFull ? me.env : undefined)) this.#reclaim(me, envFull);
    return false;
  }

  /**
   * Whether `pool` gives up the resource it is releasing although its own requests wait (the oldest since
   * `arrival`): its environment (or the daemon) is at its cap, and requests of other pools that came first
   * need more slots than the exits under way will free.
   */
  yields(pool: GatedPool, arrival: number): boolean {
    const me = this.#byPool.get(pool);
    if (!me) return false;
    const envFull = this.caps.perEnv - this.processes(me.env) <= 0;
    if (!envFull && this.caps.total - this.processes() > 0) return false;
    const scope = envFull ? me.env : undefined;
    return this.#olderNeeds(me, scope, arrival) > this.#exiting(scope);
  }

  /** Called after every request (the pool's release): allocates nothing unless a pool waits or too many are empty. */
  freed(_pool: GatedPool): void {
    if (this.#starved.size > 0) {
      const waiting = [...this.#starved];
      this.#starved.clear();
      for (const p of waiting) p.kick();
    }
    this.#dropEmpty();
  }

  /** Per environment, per canonical header. */
  stats(): Record<string, Record<string, PoolStats>> {
    const out: Record<string, Record<string, PoolStats>> = {};
    for (const e of this.#pools.values()) (out[e.env] ??= {})[e.header] = e.pool.stats();
    return out;
  }

  pools(): Pool<R, Q>[] {
    return [...this.#pools.values()].map((e) => e.pool);
  }

  async close(): Promise<void> {
    await Promise.all(this.pools().map((p) => p.close()));
  }

  async destroy(): Promise<void> {
    await Promise.all(this.pools().map((p) => p.destroyAll()));
  }

  /** Slots the waiting requests of pools other than `me` need, in `env` (or in the daemon). */
  #needs(me: Keyed<R, Q>, env: string | undefined): number {
    let n = 0;
    for (const e of this.#pools.values()) if (e !== me && (env === undefined || e.env === env)) n += claim(e);
    return n;
  }

  /** Slots needed by other pools' waiting requests that came before `arrival`, in `env` (or in the daemon). */
  #olderNeeds(me: Keyed<R, Q>, env: string | undefined, arrival: number): number {
    let n = 0;
    for (const e of this.#pools.values()) {
      if (e === me || (env !== undefined && e.env !== env)) continue;
      const t = e.pool.oldestNeed();
      if (t !== undefined && t < arrival) n += claim(e);
    }
    return n;
  }

  /** Processes retired and not yet exited in `env` (or in the daemon): slots already on their way back. */
  #exiting(env: string | undefined): number {
    let n = 0;
    for (const e of this.#pools.values()) if (env === undefined || e.env === env) n += e.pool.exiting;
    return n;
  }

  /**
   * Retire the least recently used idle process of another key (same environment when its cap binds, any
   * otherwise), another header's before an environment's own (the own header's is the one requests come back
   * to: evicting it while another header's process idles costs a second import, to take that one back for it);
   * with none idle, cancel another key's start that none of its requests waits for.
   */
  #reclaim(me: Keyed<R, Q>, sameEnv: boolean): void {
    let victim: Keyed<R, Q> | undefined;
    let oldest = Infinity;
    for (const e of this.#pools.values()) {
      if (e === me || (sameEnv && e.env !== me.env)) continue;
      const t = e.pool.oldestIdle();
      if (t === undefined) continue;
      if (!victim || (e.pinned === victim.pinned ? t < oldest : !e.pinned)) {
        oldest = t;
        victim = e;
      }
    }
    const reason = `cap: its slot went to another header (${me.env})`;
    if (victim) {
      victim.pool.evictOne(reason);
      return;
    }
    // Nothing idle: a start no request waits for (the own header's warm refill) gives way.
    for (const e of this.#pools.values()) {
      if (e === me || (sameEnv && e.env !== me.env)) continue;
      if (e.pool.cancelStart(reason)) return;
    }
  }

  #dropEmpty(): void {
    // Too few pools to have too many empty ones (every release asks): no iterator made.
    if (this.#pools.size <= KEEP_EMPTY) return;
    let count = 0;
    for (const e of this.#pools.values()) if (droppable(e)) count++;
    if (count <= KEEP_EMPTY) return;
    const empty = [...this.#pools].filter(([, e]) => droppable(e));
    for (const [k, e] of empty.slice(0, Math.max(0, empty.length - KEEP_EMPTY))) {
      this.#pools.delete(k);
      this.#byEnv.get(e.env)?.delete(e.header);
      this.#byPool.delete(e.pool);
      void e.pool.destroyAll();
    }
  }
}
