/**
 * Where one connection's searches in one (environment, header) run: its messages one at a
 * time (the REPL answers one request at a time, and a rebuild is never interleaved with a
 * step), each on a process taken from the pool when it needs one and given back when it ends.
 * A search holds no process between messages, so the states it keeps never keep another
 * caller's request waiting: that request waits at most for a running message, as it would for
 * any request (docs/proof-search.md, *Sharing processes*).
 *
 * The proof states a message made stay in its process (the REPL frees none, lease.ts). The next
 * message asks for that process again; when it gets another one, a state is made there by
 * replaying its path (replay.ts). Each process is a generation number here: a state placed on
 * a generation is on that process. When the process of the last message died (a deadline kill,
 * a crash, a cancel, the memory watchdog, a retirement), the live states are rebuilt at the next
 * message and the client is told (`rebuilt`).
 *
 * The REPL frees nothing, so what grows is the processes' state counts: every message's lease
 * goes back with the REPL states it made counted on the session, and the pool retires a
 * session by the same policy as any other (`lean.maxStates`, memory).
 */
import type { SessionLease } from '../backend/lease.ts';
import { WaiterQueue } from '../sync/waiter-queue.ts';
import type { SearchState } from './state.ts';

/** Processes in use by search messages at once, daemon-wide; a message past the cap waits its turn. */
export class ProcessSlots {
  used = 0;
  readonly #queue = new WaiterQueue<void>();
  constructor(readonly max: number) {}

  get waiting(): number {
    return this.#queue.length;
  }

  acquire(signal: AbortSignal): Promise<void> {
    if (this.used < this.max && this.#queue.length === 0) {
      this.used++;
      return Promise.resolve();
    }
    return this.#queue.wait(undefined, signal);
  }

  /** The slot passes straight to the next waiter. */
  release(): void {
    if (!this.#queue.grant(undefined)) this.used--;
  }
}

export interface HostOptions {
  environment: string;
  /** A process of the pool, the one named `prefer` first when it is idle. */
  lease: (signal: AbortSignal, prefer: string | undefined) => Promise<SessionLease>;
  slots: ProcessSlots;
}

/** Generations remembered (process → number); past it the oldest is forgotten (its states replay if needed). */
const GENERATIONS_KEPT = 64;

export class ProcessHost {
  /** The generation of the process the running message holds (or last held). */
  gen = 0;
  /** REPL proof states this host made on the process of `gen` (live or dead: the REPL keeps them all). */
  replStates = 0;
  readonly live = new Set<SearchState>();
  #lease: SessionLease | undefined;
  /** The process of the last message, given back: asked for first, and checked at the next message. */
  #last: SessionLease | undefined;
  /** REPL states made on the current lease during this message (counted on the session when it goes back). */
  #made = 0;
  #gens = new Map<string, number>();
  #nextGen = 1;
  #tail: Promise<unknown> = Promise.resolve();
  /** The generation whose process died with live states placed on it, not yet rebuilt. */
  #lostGen: number | undefined;

  constructor(readonly opts: HostOptions) {}

  get lease(): SessionLease | undefined {
    return this.#lease;
  }

  /** The process of the running message, else the last one's (for `goal.stat`). */
  get process(): SessionLease | undefined {
    return this.#lease ?? this.#last;
  }

  /** Run one message after everything queued before it; any process it took goes back when it ends. */
  exclusive<T>(f: () => Promise<T>): Promise<T> {
    const message = () => f().finally(() => this.#giveBack());
    const run = this.#tail.then(message, message);
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Count REPL proof states made on the current process. */
  made(n: number): void {
    this.replStates += n;
    this.#made += n;
  }

  /**
   * Whether live states must be rebuilt first: the process of an earlier message died while
   * they lived (found here, at the start of a message, when it died between messages).
   */
  needsRebuild(): boolean {
    const last = this.#last;
    if (last && !this.#lease && !last.alive && this.live.size > 0) this.#lostGen ??= this.gen;
    if (last && !last.alive) this.#last = undefined;
    return this.#lostGen !== undefined && this.live.size > 0;
  }

  rebuilt(): void {
    this.#lostGen = undefined;
  }

  /** The running message's process, taken (a slot, then a pool session) when it has none. */
  async ensure(signal: AbortSignal): Promise<SessionLease> {
    if (this.#lease?.healthy) return this.#lease;
    if (this.#lease) this.drop('the process died');
    await this.opts.slots.acquire(signal);
    let lease: SessionLease;
    try {
      lease = await this.#take(signal);
    } catch (e) {
      this.opts.slots.release();
      throw e;
    }
    this.#lease = lease;
    this.#made = 0;
    // Another process than the last message's, which is gone (a remote one may only show it now):
    // its states are rebuilt before the message goes on.
    const last = this.#last;
    if (last && last.process !== lease.process && !last.alive) {
      if (this.live.size > 0) this.#lostGen ??= this.gen;
      this.#last = undefined;
    }
    const gen = this.#generation(lease.process);
    if (gen !== this.gen) this.replStates = 0;
    this.gen = gen;
    return lease;
  }

  /**
   * A live process of the pool. One that died while idle there may be handed out before the pool
   * has noticed: it is destroyed and another asked for (a few times, then the last one is used,
   * and its first request finds it dead: a `crash`).
   */
  async #take(signal: AbortSignal): Promise<SessionLease> {
    for (let tries = 1; ; tries++) {
      const lease = await this.opts.lease(signal, this.#last?.alive ? this.#last.process : undefined);
      if (lease.healthy || tries >= 3) return lease;
      lease.destroy('search: the process was dead when taken');
    }
  }

  #generation(process: string): number {
    let g = this.#gens.get(process);
    if (g === undefined) {
      g = this.#nextGen++;
      if (this.#gens.size >= GENERATIONS_KEPT) this.#gens.delete(this.#gens.keys().next().value!);
      this.#gens.set(process, g);
    }
    return g;
  }

  /** The process is gone or must go (a kill at a deadline, a crash): its placements are void. */
  drop(reason: string): void {
    const l = this.#lease;
    if (!l) return;
    this.#lease = undefined;
    this.#last = undefined;
    this.#gens.delete(l.process);
    this.opts.slots.release();
    l.destroy(`search: ${reason}`);
    if (this.live.size > 0) this.#lostGen = this.gen;
  }

  /** The message ended: its process goes back to the pool, with the REPL states it made counted. */
  #giveBack(): void {
    const l = this.#lease;
    if (!l) return;
    this.#lease = undefined;
    this.#last = l;
    this.opts.slots.release();
    l.release(this.#made);
    this.#made = 0;
  }

  /**
   * Between two tactics of one message: the process goes back when another request waits for
   * one (of the pool, or a search slot), which gets it first; the next tactic takes one again.
   * So a message of many long tactics holds a process no longer than one tactic while others wait.
   */
  yieldIfWanted(): void {
    const l = this.#lease;
    if (l && (l.contended || this.opts.slots.waiting > 0)) this.#giveBack();
  }

  /** States died (no process is held between messages: nothing else to do). */
  forget(states: Iterable<SearchState>): void {
    for (const s of states) this.live.delete(s);
  }

  /** End now (the daemon closes). */
  close(): void {
    this.live.clear();
    this.drop('daemon closing');
    this.#last = undefined;
    this.#lostGen = undefined;
  }
}
