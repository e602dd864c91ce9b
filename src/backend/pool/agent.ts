/**
 * One pool per (environment, canonical header), the way undici's Agent keeps one pool per
 * origin: a process only ever imports one header, because Lean maps each `.olean` at a
 * fixed address and a second, different header in the same process is copied into
 * ordinary memory instead (several GB more for a Mathlib-sized one).
 *
 * Memory is the scarce resource, so processes are capped per environment and per daemon.
 * The agent is the pools' SlotGate: a pool may start a process while both caps leave room;
 * when they do not and the pool has requests waiting, the longest-idle process of another
 * key (of the same environment when that cap binds) is retired to make room, and the
 * waiting pool is kicked once it has exited. Warming (minWarm, replacements) never evicts.
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
    const envFull = this.processes(me.env) >= this.caps.perEnv;
    const allFull = this.processes() >= this.caps.total;
    if (!envFull && !allFull) return true;
    this.#starved.add(pool);
    // Only a request that waits reclaims a process from another key; warming does not.
    if (pool.starved) this.#reclaim(me, envFull);
    return false;
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

  /** Retire the longest-idle process of another key: same environment when its cap binds, any otherwise. */
  #reclaim(me: Keyed<R, Q>, sameEnv: boolean): void {
    let victim: Keyed<R, Q> | undefined;
    let oldest = Infinity;
    for (const e of this.#pools.values()) {
      if (e === me || (sameEnv && e.env !== me.env)) continue;
      const t = e.pool.oldestIdle();
      if (t !== undefined && t < oldest) {
        oldest = t;
        victim = e;
      }
    }
    victim?.pool.evictOne(`cap: its slot went to another header (${me.env})`);
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
