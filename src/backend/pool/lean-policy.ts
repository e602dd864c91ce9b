/**
 * The policy of the Lean pools: which idle session serves a request (the one holding the
 * longest prefix of it, then the most recently used: it is warmest) and when a session
 * retires (between requests only; the pool never asks during one).
 */
import type { PoolPolicy, Usage } from './pool.ts';
import type { WarmSession } from './warm-session.ts';

/** Scores an idle session for a request: higher is better (the length of the prefix it holds). */
export type Affinity = (s: WarmSession) => number;

export interface RetireLimits {
  /** Soft memory threshold (bytes): retire when above it after a request (0: none). The hard cap is the watchdog's. */
  softRssBytes: number;
  maxUses: number;
  /** REPL states (commands sent since spawn) after which a session retires: they are never freed. */
  maxStates: number;
  /** CPU seconds after which a session retires, before RLIMIT_CPU would kill it mid-request (0: none). */
  maxCpuSeconds: number;
}

export function leanPolicy(l: RetireLimits): PoolPolicy<WarmSession, Affinity> {
  return {
    // `retire` compares memory with the soft threshold only: a reading that cannot have passed it need not be fresh.
    rssBound: l.softRssBytes > 0 ? l.softRssBytes : Infinity,
    choose(idle, affinity) {
      // Highest score wins; among equals the most recently released (end of the list).
      let best = idle.length - 1;
      let bestScore = affinity(idle[best]!);
      for (let i = idle.length - 2; i >= 0; i--) {
        const sc = affinity(idle[i]!);
        if (sc > bestScore) {
          best = i;
          bestScore = sc;
        }
      }
      return best;
    },
    retire(s, u: Usage) {
      if (l.softRssBytes > 0 && u.rssBytes > l.softRssBytes)
        return `memory (${mb(u.rssBytes)} MiB > soft ${mb(l.softRssBytes)} MiB)`;
      if (s.uses >= l.maxUses) return `uses (${s.uses})`;
      if (s.states >= l.maxStates) return `states (${s.states} REPL states)`;
      if (l.maxCpuSeconds > 0 && u.cpuSeconds > l.maxCpuSeconds) return `cpu time (${Math.round(u.cpuSeconds)} s)`;
      return undefined;
    },
  };
}

const mb = (b: number) => Math.round(b / 2 ** 20);
