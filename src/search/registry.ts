/**
 * The daemon's table of live proof search states: opaque id → state, per owner (one stream
 * connection), with a cap per owner and one for the daemon, and an idle TTL. Deleting a state
 * here is all the freeing there is: the REPL cannot free a proof state (see lease.ts), so the
 * owner's process host is told how many live states it still has and recycles the process
 * once none are left.
 */
import type { SearchState } from './state.ts';

/** Who holds states: a connection's search session. Called with what died, whatever the cause. */
export interface StateOwner {
  onDeath(states: readonly SearchState[], why: 'deleted' | 'expired' | 'closed'): void;
}

export interface RegistryLimits {
  maxStatesPerConnection: number;
  maxStates: number;
  /** 0: never expire. */
  stateTtlSeconds: number;
}

export class StateRegistry {
  #byId = new Map<string, { state: SearchState; owner: StateOwner }>();
  #byOwner = new Map<StateOwner, Set<SearchState>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly limits: RegistryLimits) {
    if (limits.stateTtlSeconds > 0) {
      const every = Math.max(50, Math.min((limits.stateTtlSeconds * 1000) / 2, 10_000));
      this.#timer = setInterval(() => this.sweep(), every);
      this.#timer.unref();
    }
  }

  get size(): number {
    return this.#byId.size;
  }

  held(owner: StateOwner): number {
    return this.#byOwner.get(owner)?.size ?? 0;
  }

  /** Why `owner` may not add `n` more states now, or undefined when it may. */
  refusal(owner: StateOwner, n = 1): { scope: string; count: number; setting: string } | undefined {
    const mine = this.held(owner);
    if (mine + n > this.limits.maxStatesPerConnection)
      return { scope: 'this connection', count: mine, setting: 'search.maxStatesPerConnection' };
    if (this.#byId.size + n > this.limits.maxStates)
      return { scope: 'the daemon', count: this.#byId.size, setting: 'search.maxStates' };
    return undefined;
  }

  add(owner: StateOwner, s: SearchState): void {
    this.#byId.set(s.id, { state: s, owner });
    let set = this.#byOwner.get(owner);
    if (!set) this.#byOwner.set(owner, (set = new Set()));
    set.add(s);
  }

  /** A live state of `owner` (another owner's id is unknown to it), touched. */
  get(owner: StateOwner, id: string, now = Date.now()): SearchState | undefined {
    const e = this.#byId.get(id);
    if (!e || e.owner !== owner) return undefined;
    e.state.touchedAt = now;
    return e.state;
  }

  /** Delete `ids` of `owner`; returns the ids it does not hold. */
  delete(owner: StateOwner, ids: readonly string[], why: 'deleted' | 'expired' = 'deleted'): string[] {
    const unknown: string[] = [];
    const dead: SearchState[] = [];
    for (const id of ids) {
      const e = this.#byId.get(id);
      if (!e || e.owner !== owner) unknown.push(id);
      else if (this.#drop(e.state, owner)) dead.push(e.state);
    }
    if (dead.length > 0) owner.onDeath(dead, why);
    return unknown;
  }

  /** Every state of `owner` dies (its connection closed). */
  closeOwner(owner: StateOwner): void {
    const set = this.#byOwner.get(owner);
    if (!set) return;
    const dead = [...set];
    for (const s of dead) this.#drop(s, owner);
    this.#byOwner.delete(owner);
    owner.onDeath(dead, 'closed');
  }

  /** Expire states untouched for the TTL. */
  sweep(now = Date.now()): number {
    const ttl = this.limits.stateTtlSeconds * 1000;
    if (ttl <= 0) return 0;
    const byOwner = new Map<StateOwner, string[]>();
    for (const { state, owner } of this.#byId.values()) {
      if (now - state.touchedAt < ttl) continue;
      let list = byOwner.get(owner);
      if (!list) byOwner.set(owner, (list = []));
      list.push(state.id);
    }
    let n = 0;
    for (const [owner, ids] of byOwner) {
      n += ids.length;
      this.delete(owner, ids, 'expired');
    }
    return n;
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #drop(s: SearchState, owner: StateOwner): boolean {
    if (!this.#byId.delete(s.id)) return false;
    s.live = false;
    this.#byOwner.get(owner)?.delete(s);
    return true;
  }
}
