/**
 * A session taken for one proof search message: a warm session of the (environment, header)
 * pool, held while the message runs and given back after it, like any request's. The proof
 * states the search made stay in that process (the REPL frees none), so the next message asks
 * for the same process again (`prefer`) and replays what is missing when it gets another one
 * (src/search/replay.ts). The REPL keeps every proof state it recorded for the
 * process's life (it only appends to `proofStates` [repl v4.28.0: REPL/Main.lean,
 * `recordProofSnapshot`]; it has no request that frees one: the `gc`/`discard` option of repl
 * commits 4ab23f9/f867ab2 is on a branch no tag v4.21.0 … v4.33.0-rc2 contains), so what a lease created is added
 * to the session's state count when it goes back, and the pool's retirement policy sees it.
 */
import type { EnvironmentConfig } from '../envs/config.ts';
import { canonicalHeaderOf, chainKeys, rootKey } from './session/keys.ts';
import type { LeanBackend } from './index.ts';
import type { ReplMessage, ReplResponse, ReplSorry } from './protocol/schema.ts';

export interface LeasedCommand {
  env: number;
  messages: ReplMessage[];
  sorries: ReplSorry[];
  /** Answered from the session's memory of this exact text on this header (the REPL states still exist). */
  cached: boolean;
}

export interface SessionLease {
  readonly pid: number;
  readonly sessionId: number;
  /** Names the process daemon-wide, never reused: proof states placed on it are valid while it lives. */
  readonly process: string;
  /** Whether this lease may still be used (not released, its process alive). */
  readonly healthy: boolean;
  /** Whether its process still lives, released or not (its proof states with it). */
  readonly alive: boolean;
  /** Whether other requests wait for a process of its pool now (false when that cannot be known). */
  readonly contended: boolean;
  /** Elaborate one command on the header's env; `prepare` may add a heartbeat budget (the lines it adds on top). */
  command(
    text: string,
    signal: AbortSignal | undefined,
    prepare?: (text: string) => { text: string; lines: number },
  ): Promise<LeasedCommand>;
  /** One tactic on a proof state of this process. */
  step(tactic: string, proofState: number, signal?: AbortSignal): Promise<ReplResponse>;
  usage(): { rssBytes: number };
  /** Back to the pool, with the REPL states this lease made counted on the session. Idempotent. */
  release(states: number): void;
  /** Kill the process now (a deadline, a fault, or a recycle). Idempotent. */
  destroy(reason: string): void;
}

/**
 * Take a warm session of `env`'s pool for `header` until `release` or `destroy`; among idle
 * ones, the process named `prefer` first (where the caller's proof states are).
 */
export async function leaseSession(
  backend: LeanBackend,
  env: EnvironmentConfig,
  header: string,
  signal: AbortSignal,
  prefer?: string,
): Promise<SessionLease> {
  const canonical = canonicalHeaderOf(header).text;
  const pool = backend.pool(env, header);
  const ws = await pool.acquire((s) => (prefer !== undefined && localProcess(s.id) === prefer ? 1 : 0), signal);
  let done = false;
  const root = rootKey(canonical);
  return {
    pid: ws.pid,
    sessionId: ws.id,
    process: localProcess(ws.id),
    get healthy() {
      return !done && ws.healthy;
    },
    get alive() {
      return ws.healthy;
    },
    get contended() {
      return pool.waiting > 0;
    },
    async command(text, sig, prepare) {
      // The same key an ordinary request with this one command has: a session that elaborated it answers from memory.
      const key = chainKeys(root, [text])[0]!;
      const { outcomes } = await ws.session.run(canonical, [{ key, text }], {
        ...(sig ? { signal: sig } : {}),
        ...(prepare ? { prepare: (t: string) => prepare(t) } : {}),
      });
      const o = outcomes[0]!;
      if (!o.cached) ws.states++;
      return { env: o.env, messages: o.messages, sorries: o.sorries, cached: o.cached };
    },
    step: (tactic, proofState, sig) => ws.session.step(tactic, proofState, sig),
    usage: () => ({ rssBytes: ws.session.usage().rssBytes }),
    release(states) {
      if (done) return;
      done = true;
      ws.states += states;
      pool.release(ws);
    },
    destroy(reason) {
      if (done) return;
      done = true;
      pool.destroy(ws, reason);
    },
  };
}

/** A session of this daemon's pools by its id (ids are never reused: a counter, session.ts). */
const localProcess = (id: number) => `local:${id}`;
