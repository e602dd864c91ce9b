/**
 * The two things a search asks of Lean, with their deadlines.
 *
 * A root command goes out like any command of the tools: with a Lean-side heartbeat budget
 * bought by the time left (`set_option maxHeartbeats N in`, only when that is below the
 * limit a real run has; see backend/heartbeats/max-heartbeats.ts), and the process is killed at the
 * deadline.
 *
 * A tactic cannot be given a budget: the REPL runs it in the proof state's saved
 * `Core.Context` [repl v4.28.0: REPL/Snapshots.lean, `ProofSnapshot.runCoreM` under
 * `runTacticM`/`runString`; the context is saved by `ProofSnapshot.create` inside
 * `ContextInfo.runMetaM`]. `ContextInfo.runCoreM` builds that context from a literal that sets
 * no `maxHeartbeats`, so the field keeps its default `getMaxHeartbeats options` of empty
 * options, Lean's default 200000 [lean4 69c7113: src/Lean/Elab/InfoTree/Main.lean,
 * `ContextInfo.runCoreM`; lean4 00675a0: src/Lean/CoreM.lean, `structure Context`], counted
 * afresh for each step (`CoreM.toIO` sets `initHeartbeats`). `withOptions` changes only
 * `options`, `diag` and `maxRecDepth` (ibid., `instance : MonadWithOptions CoreM`), and the
 * tactic `set_option … in` only `options` and `maxRecDepth` [lean4 815891d:
 * src/Lean/Elab/Tactic/BuiltinTactic.lean, `elabSetOption`], so no text sent with a tactic
 * lowers the limit (the commits named are the ones read here; the REPL's own code is the same
 * at every tag v4.24.0 … v4.33.0-rc2). Each tactic therefore has Lean's default budget inside
 * Lean (a runaway `simp` stops with the heartbeat error and the process lives), then the kill
 * deadline. A heartbeat stop at the default is what any run of that tactic in the REPL does:
 * a fact about the tactic, cached like any answer.
 */
import type { SessionLease } from '../backend/lease.ts';
import {
  heartbeatBudget,
  LEAN_DEFAULT_MAX_HEARTBEATS,
  sentBudget,
  stoppedAt,
  stoppedByBudget,
  withBudget,
  wrappable,
  WRAP_LINES,
} from '../backend/heartbeats/max-heartbeats.ts';
import type { ReplMessage, ReplResponse, ReplSorry } from '../backend/protocol/schema.ts';
import { ReplError } from '../backend/process/repl-process.ts';
import type { SearchMessage } from '../contract/search.ts';
import { serviceError } from '../errors.ts';
import type { RootGroup } from './state.ts';
import { deadlineSignal } from '../util/timeout-signal.ts';

export interface RootAnswer {
  sorries: ReplSorry[];
  messages: ReplMessage[];
  /** The session had elaborated this text before: no new REPL state. */
  cached: boolean;
}

/** A root command with its Lean-side budget (from `perSecond`) and kill deadline (`ms`). */
export async function runRoot(
  lease: SessionLease,
  group: RootGroup,
  ms: number,
  perSecond: number,
  signal: AbortSignal,
): Promise<RootAnswer> {
  const deadline = Date.now() + ms;
  let sent = group.text;
  const prepare = (text: string) => {
    if (perSecond <= 0 || !wrappable(text)) return { text, lines: 0 };
    const n = heartbeatBudget(deadline - Date.now(), perSecond, LEAN_DEFAULT_MAX_HEARTBEATS);
    if (n === LEAN_DEFAULT_MAX_HEARTBEATS) return { text, lines: 0 };
    sent = withBudget(text, n);
    return { text: sent, lines: WRAP_LINES };
  };
  const timer = deadlineSignal(signal, ms);
  try {
    const r = await lease.command(group.text, timer.signal, prepare);
    const budget = sentBudget(sent);
    // The elaborator's stop names the budget; the kernel's, "(kernel) deterministic timeout", names
    // none [lean4 src/Lean/Message.lean, `Kernel.Exception.toMessageData`; recorded:
    // ../shared/recorded/lean4/tests/lean/run/kernel_maxheartbeats.lean]: under a budget sent below
    // the limit in scope, both are the budget's stop (backend/heartbeats/max-heartbeats.ts, `stoppedByBudget`).
    if (budget !== undefined && r.messages.some((m) => m.severity === 'error' && stoppedByBudget(m.data, budget)))
      throw serviceError('lean_timeout', 'heartbeat_budget');
    return r;
  } catch (e) {
    if (e instanceof ReplError && timer.timedOut && !signal.aborted)
      throw serviceError('lean_timeout', 'deadline', { seconds: Math.round(ms / 100) / 10 });
    throw e;
  } finally {
    timer.clear();
  }
}

/** Thrown when a tactic's kill deadline passed: the process was killed. */
export class TacticDeadline extends Error {
  constructor(readonly ms: number) {
    super(`the tactic did not finish within ${ms / 1000} s; its process was killed`);
    this.name = 'TacticDeadline';
  }
}

/** One tactic with its kill deadline; a ReplError other than the deadline (a crash) passes through. */
export async function runStep(
  lease: SessionLease,
  tactic: string,
  proofState: number,
  ms: number,
  signal: AbortSignal,
): Promise<ReplResponse> {
  const timer = deadlineSignal(signal, ms);
  try {
    return await lease.step(tactic, proofState, timer.signal);
  } catch (e) {
    if (e instanceof ReplError && timer.timedOut && !signal.aborted) throw new TacticDeadline(ms);
    throw e;
  } finally {
    timer.clear();
  }
}

/** Whether a REPL error answer is Lean's heartbeat stop. */
export const isHeartbeatStop = (message: string): boolean => stoppedAt(message) !== undefined;

export function toSearchMessage(m: ReplMessage): SearchMessage {
  return {
    severity: m.severity === 'trace' ? 'info' : m.severity,
    pos: m.pos,
    ...(m.endPos ? { endPos: m.endPos } : {}),
    text: m.data,
  };
}
