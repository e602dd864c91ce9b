/**
 * The daemon's table of live proof search states: opaque id → state, per owner (one stream
 * connection), with caps per caller (an API key, or an anonymous caller by address: all its
 * connections together) and for the daemon, on live states and on the bytes states hold, and
 * an idle TTL. Deleting a state here is all the freeing there is: the REPL cannot free a proof
 * state (see lease.ts).
 *
 * Bytes: a state holds its tactic and goals (a root, its share of the command text), and keeps
 * its parent, so a deleted state still holds its bytes while a live descendant keeps it (its
 * path, for replay). Each state counts how many hold it (itself while live, and each child
 * added); its bytes are counted against its caller until that count is zero.
 */
import type { SearchState } from './state.ts';

/** Who holds states: a connection's search session. Called with what died, whatever the cause. */
export interface StateOwner {
  /** The caller the caps count: the same for all of one caller's connections. */
  readonly caller: { readonly id: string };
  onDeath(states: readonly SearchState[], why: 'deleted' | 'expired' | 'closed'): void;
}

export interface RegistryLimits {
  maxStatesPerCaller: number;
  maxStateBytesPerCaller: number;
  maxStates: number;
  maxStateBytes: number;
  /** 0: never expire. */
  stateTtlSeconds: number;
}

export interface Refusal {
  scope: string;
  /** What it holds, in words: "3 live proof search states", "67108864 bytes of proof search states". */
  count: string;
  setting: string;
}

const statesHeld = (n: number) => `${n} live proof search states`;
const bytesHeld = (n: number) => `${n} bytes of proof search states`;

interface Account {
  states: number;
  bytes: number;
}

/** Fixed cost of a state's record beside its texts (ids, keys, links), counted with them. */
const STATE_OVERHEAD_BYTES = 256;

/** What a state holds in the daemon (UTF-16: two bytes a character). */
export function stateBytes(s: SearchState): number {
  let chars = s.tactic?.length ?? Math.ceil(s.group.text.length / Math.max(1, s.group.sorryIndexes.length));
  for (const g of s.goals) chars += g.length;
  return STATE_OVERHEAD_BYTES + 2 * chars;
}

export class StateRegistry {
  #byId = new Map<string, { state: SearchState; owner: StateOwner }>();
  #byOwner = new Map<StateOwner, Set<SearchState>>();
  #callers = new Map<string, Account>();
  /** How many hold each counted state (itself while live, its children added): its bytes go when none does. */
  #holds = new WeakMap<SearchState, number>();
  #bytes = 0;
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

  /** Bytes all states hold. */
  get bytes(): number {
    return this.#bytes;
  }

  held(owner: StateOwner): number {
    return this.#byOwner.get(owner)?.size ?? 0;
  }

  /** Live states and bytes of a caller, all its connections together. */
  account(callerId: string): Account {
    return { ...(this.#callers.get(callerId) ?? { states: 0, bytes: 0 }) };
  }

  /** Why `owner` may not add `n` more states of `bytes` bytes now, or undefined when it may. */
  refusal(owner: StateOwner, n = 1, bytes = 0): Refusal | undefined {
    const l = this.limits;
    const mine = this.#callers.get(owner.caller.id) ?? { states: 0, bytes: 0 };
    if (mine.states + n > l.maxStatesPerCaller)
      return { scope: 'this caller', count: statesHeld(mine.states), setting: 'search.maxStatesPerCaller' };
    if (mine.bytes + bytes > l.maxStateBytesPerCaller)
      return { scope: 'this caller', count: bytesHeld(mine.bytes), setting: 'search.maxStateBytesPerCaller' };
    if (this.#byId.size + n > l.maxStates)
      return { scope: 'the daemon', count: statesHeld(this.#byId.size), setting: 'search.maxStates' };
    if (this.#bytes + bytes > l.maxStateBytes)
      return { scope: 'the daemon', count: bytesHeld(this.#bytes), setting: 'search.maxStateBytes' };
    return undefined;
  }

  add(owner: StateOwner, s: SearchState): void {
    this.#byId.set(s.id, { state: s, owner });
    let set = this.#byOwner.get(owner);
    if (!set) this.#byOwner.set(owner, (set = new Set()));
    set.add(s);
    const a = this.#account(owner);
    a.states++;
    this.#holds.set(s, 1);
    a.bytes += stateBytes(s);
    this.#bytes += stateBytes(s);
    const p = s.parent;
    const held = p && this.#holds.get(p);
    if (p && held) this.#holds.set(p, held + 1);
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

  #account(owner: StateOwner): Account {
    let a = this.#callers.get(owner.caller.id);
    if (!a) this.#callers.set(owner.caller.id, (a = { states: 0, bytes: 0 }));
    return a;
  }

  #drop(s: SearchState, owner: StateOwner): boolean {
    if (!this.#byId.delete(s.id)) return false;
    s.live = false;
    this.#byOwner.get(owner)?.delete(s);
    const a = this.#account(owner);
    a.states--;
    // Itself, then each ancestor no longer held by anything (iterative: paths may be long).
    for (let x: SearchState | undefined = s; x; x = x.parent) {
      const held = this.#holds.get(x);
      // Not counted (a parent deleted while its child was being made: the child did not hold it).
      if (held === undefined) break;
      if (held > 1) {
        this.#holds.set(x, held - 1);
        break;
      }
      this.#holds.delete(x);
      a.bytes -= stateBytes(x);
      this.#bytes -= stateBytes(x);
    }
    if (a.states === 0 && a.bytes <= 0) this.#callers.delete(owner.caller.id);
    return true;
  }
}
