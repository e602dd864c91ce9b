/**
 * The step cache: the outcome of a tactic on a state, by the state's (root, path) and the
 * tactic (`stepKey`). Two states with the same key are the same Lean state — the same command
 * on the same environment and header, the same sorry, the same tactics in order — so the REPL
 * would answer the same; the child a hit creates is placed on a process only when it is used.
 * Outcomes of the daemon's own limits (a kill deadline, a cap, a lost state) are not facts
 * about the tactic and are never stored.
 */
import { LRUCache } from 'lru-cache';
import type { SearchMessage } from '../contract/search.ts';

export type CachedStep =
  | { ok: true; goals: string[]; messages: SearchMessage[]; sorries: string[]; proofStatus: string }
  | { ok: false; kind: 'lean' | 'heartbeats'; error: string };

export class StepCache {
  #lru: LRUCache<string, CachedStep> | undefined;
  readonly #entries: number;
  hits = 0;
  misses = 0;

  constructor(entries: number) {
    this.#entries = entries;
  }

  get(key: string): CachedStep | undefined {
    const v = this.#lru?.get(key);
    if (v) this.hits++;
    else this.misses++;
    return v;
  }

  set(key: string, v: CachedStep): void {
    // Made at the first step to keep: lru-cache allocates its index for `max` entries up front
    // (~2 MB for the default 100,000), which every daemon start paid before any search.
    if (this.#entries > 0) (this.#lru ??= new LRUCache({ max: this.#entries })).set(key, v);
  }

  get size(): number {
    return this.#lru?.size ?? 0;
  }
}
