/**
 * Making a state exist on the host's current process: run its root command (once per
 * generation for all roots of that command), then its tactics from the nearest ancestor that
 * is already there. The same code places a state the step cache answered (never sent) and
 * rebuilds every live state after its process was killed or crashed.
 *
 * A replayed state must come out as it was: a tactic the REPL now refuses, or goals that
 * differ from the recorded ones, mean the state cannot be rebuilt — it is lost, and says why.
 * A process killed during a replay loses the state being replayed (and, through `failed`,
 * every state below it), and the rebuild goes on with the others on a fresh process.
 */
import type { SessionLease } from '../backend/lease.ts';
import { ReplError } from '../backend/process/repl-process.ts';
import type { ReplResponse } from '../backend/protocol/schema.ts';
import type { ProcessHost } from './host.ts';
import { TacticDeadline, type RootAnswer } from './lean-steps.ts';
import type { RootGroup, SearchState } from './state.ts';

export class Lost extends Error {
  constructor(
    readonly state: SearchState,
    reason: string,
  ) {
    super(reason);
    this.name = 'Lost';
  }
}

export interface ReplayDeps {
  /** Run a root command on the lease (with its Lean-side budget and kill deadline). */
  root(lease: SessionLease, group: RootGroup, signal: AbortSignal): Promise<RootAnswer>;
  /** One tactic (with its kill deadline). */
  step(lease: SessionLease, tactic: string, proofState: number, signal: AbortSignal): Promise<ReplResponse>;
}

const sameGoals = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((g, i) => g === b[i]);

async function placeRoot(
  host: ProcessHost,
  lease: SessionLease,
  s: SearchState,
  deps: ReplayDeps,
  signal: AbortSignal,
) {
  let placed = s.group.placed;
  if (placed?.gen !== host.gen) {
    const { sorries, cached, messages } = await deps.root(lease, s.group, signal);
    if (sorries.length === 0) {
      const err = messages.find((m) => m.severity === 'error')?.data;
      throw new Lost(s, `replaying its command gave no sorry${err ? `: ${err.slice(0, 300)}` : ''}`);
    }
    if (!cached) host.made(sorries.filter((x) => typeof x.proofState === 'number').length);
    placed = {
      gen: host.gen,
      proofStates: sorries.map((x) => x.proofState ?? undefined),
      goals: sorries.map((x) => x.goal),
    };
    s.group.placed = placed;
  }
  const ps = placed.proofStates[s.sorry];
  if (ps === undefined) throw new Lost(s, 'replaying its command gave no proof state at its sorry');
  if (placed.goals[s.sorry] !== s.goals[0])
    throw new Lost(s, `replaying its command gave another goal: ${JSON.stringify(placed.goals[s.sorry] ?? null)}`);
  s.placement = { gen: host.gen, proofState: ps };
}

/** Place `s` on the host's current process (taking one if needed); its REPL proof state. */
export async function materialize(
  host: ProcessHost,
  s: SearchState,
  deps: ReplayDeps,
  signal: AbortSignal,
): Promise<number> {
  const lease = await host.ensure(signal);
  const chain: SearchState[] = [];
  let x = s;
  while (x.placement?.gen !== host.gen && x.parent) {
    chain.push(x);
    x = x.parent;
  }
  if (x.placement?.gen !== host.gen) await placeRoot(host, lease, x, deps, signal);
  for (let i = chain.length - 1; i >= 0; i--) {
    const c = chain[i]!;
    const r = await deps.step(lease, c.tactic!, c.parent!.placement!.proofState, signal);
    if (r.type !== 'proofStep') {
      throw new Lost(c, `replaying \`${c.tactic!}\` failed: ${r.type === 'error' ? r.value.message : 'no answer'}`);
    }
    host.made(1 + r.value.sorries.length);
    if (!sameGoals(r.value.goals, c.goals)) throw new Lost(c, 'replaying its tactics gave other goals');
    c.placement = { gen: host.gen, proofState: r.value.proofState };
  }
  return s.placement!.proofState;
}

export interface RebuildReport {
  rebuilt: SearchState[];
  lost: { state: SearchState; reason: string }[];
}

/** Rebuild every live state of `host` on a fresh process, shallowest first (ancestors are shared). */
export async function rebuildAll(host: ProcessHost, deps: ReplayDeps, signal: AbortSignal): Promise<RebuildReport> {
  const report: RebuildReport = { rebuilt: [], lost: [] };
  const failed = new Map<string, string>();
  const targets = [...host.live].sort((a, b) => a.depth - b.depth);
  for (const s of targets) {
    const below = failedAncestor(s, failed);
    if (below) {
      report.lost.push({ state: s, reason: below });
      continue;
    }
    try {
      await materialize(host, s, deps, signal);
      report.rebuilt.push(s);
    } catch (e) {
      if (signal.aborted) throw e;
      const reason =
        e instanceof Lost
          ? e.message
          : e instanceof ReplError || e instanceof TacticDeadline
            ? `its replay lost the process again (${e.message})`
            : undefined;
      if (reason === undefined) throw e;
      if (!(e instanceof Lost)) host.drop('a replay failed');
      const at = e instanceof Lost ? e.state : s;
      failed.set(at.pathKey, reason);
      report.lost.push({ state: s, reason });
    }
  }
  host.rebuilt();
  return report;
}

function failedAncestor(s: SearchState, failed: Map<string, string>): string | undefined {
  if (failed.size === 0) return undefined;
  for (let x: SearchState | undefined = s; x; x = x.parent) {
    const r = failed.get(x.pathKey);
    if (r !== undefined) return x === s ? r : `an ancestor could not be rebuilt: ${r}`;
  }
  return undefined;
}
