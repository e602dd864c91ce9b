/**
 * One process held for one connection's searches in one (environment, header): messages run
 * one at a time (the REPL answers one request at a time), the lease is taken at the first
 * start and given back when no live state is left. Each new lease is a new generation: a
 * state placed on an older generation is not on this process and must be replayed.
 *
 * Recycling: the REPL frees nothing (lease.ts), so a process whose states all died still holds
 * them. When the last live state dies the lease ends: a process that made at least
 * `recycleDeadStates` REPL states is killed (a fresh one warms in the pool); one that made
 * fewer goes back to the pool with that count added to its states, which the pool's own
 * retirement policy (`maxStates`, memory) weighs like any other.
 */
import type { SessionLease } from '../backend/lease.ts';
import { serviceError } from '../errors.ts';
import type { SearchState } from './state.ts';

/** Processes held by searches, daemon-wide. */
export class ProcessSlots {
  used = 0;
  constructor(readonly max: number) {}
}

export interface HostOptions {
  environment: string;
  lease: (signal: AbortSignal) => Promise<SessionLease>;
  slots: ProcessSlots;
  recycleDeadStates: number;
  /** See SearchConfig.migrateReplStates. */
  migrateReplStates: number;
}

export class ProcessHost {
  gen = 0;
  /** REPL proof states made on the current lease (live or dead: the REPL keeps them all). */
  replStates = 0;
  readonly live = new Set<SearchState>();
  #lease: SessionLease | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  /** The generation whose process died with live states placed on it, not yet rebuilt. */
  #lostGen: number | undefined;

  constructor(readonly opts: HostOptions) {}

  get lease(): SessionLease | undefined {
    return this.#lease;
  }

  /** Run `f` after everything queued before it on this host. */
  exclusive<T>(f: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(f, f);
    this.#tail = run.catch(() => {});
    return run;
  }

  /**
   * Whether states placed on an earlier process need rebuilding (it died while they lived). A
   * lease whose process died since the last message (a crash, the memory watchdog, a cancel) is
   * dropped here first: this is where such a death is found.
   */
  needsRebuild(): boolean {
    if (this.#lease && !this.#lease.healthy) this.drop('the process died');
    return this.#lostGen !== undefined && this.live.size > 0;
  }

  rebuilt(): void {
    this.#lostGen = undefined;
  }

  /** The current lease, taken (a new generation) when there is none. */
  async ensure(signal: AbortSignal): Promise<SessionLease> {
    if (this.#lease?.healthy) return this.#lease;
    if (this.#lease) this.drop('the process died');
    const slots = this.opts.slots;
    if (slots.used >= slots.max) throw serviceError('queue_full', 'search_processes', { max: slots.max });
    slots.used++;
    try {
      this.#lease = await this.opts.lease(signal);
    } catch (e) {
      slots.used--;
      throw e;
    }
    this.gen++;
    this.replStates = 0;
    return this.#lease;
  }

  /** The process is gone or must go (a kill at a deadline, a crash): its placements are void. */
  drop(reason: string): void {
    const l = this.#lease;
    if (!l) return;
    this.#lease = undefined;
    this.opts.slots.used--;
    l.destroy(`search: ${reason}`);
    if (this.live.size > 0) this.#lostGen = this.gen;
  }

  /** States died: when none is left, the lease ends (returned, or recycled when it holds many dead states). */
  forget(states: Iterable<SearchState>): void {
    for (const s of states) this.live.delete(s);
    if (this.live.size > 0 || !this.#lease) return;
    const l = this.#lease;
    // Only once the queue is idle: a message still running may be making states on it.
    void this.exclusive(async () => {
      if (this.live.size > 0 || this.#lease !== l) return;
      this.#lease = undefined;
      this.opts.slots.used--;
      this.#lostGen = undefined;
      if (this.replStates >= this.opts.recycleDeadStates)
        l.destroy(`search: recycled (holds only dead proof states: ${this.replStates})`);
      else l.release(this.replStates);
    });
  }

  /** Whether the process holds so many dead states that its live ones should move to a fresh one. */
  shouldMigrate(): boolean {
    const n = this.opts.migrateReplStates;
    return n > 0 && this.#lease !== undefined && this.replStates >= n && this.live.size * 2 <= this.replStates;
  }

  /** End now (the daemon closes). */
  close(): void {
    this.live.clear();
    this.drop('daemon closing');
    this.#lostGen = undefined;
  }
}
