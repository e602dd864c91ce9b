/** REPL answers → what the client is sent (and what the step cache keeps). */
import { shiftPos } from '../backend/protocol/messages.ts';
import type { ReplResponse } from '../backend/protocol/schema.ts';
import type { GoalStartResult, SearchMessage } from '../contract/search.ts';
import type { LeanPosition } from '../syntax/positions.ts';
import { isHeartbeatStop, toSearchMessage, type RootAnswer } from './lean-steps.ts';
import type { CachedStep } from './step-cache.ts';
import type { SearchState } from './state.ts';

export function toCachedStep(r: ReplResponse): CachedStep {
  if (r.type === 'proofStep') {
    const v = r.value;
    return {
      ok: true,
      goals: v.goals,
      messages: v.messages.map(toSearchMessage),
      sorries: v.sorries.map((s) => s.goal),
      // Present at every supported tag [repl v4.21.0 … v4.33.0-rc2: REPL/JSON.lean, `ProofStepResponse`].
      proofStatus: v.proofStatus ?? 'Not reported',
    };
  }
  const error = r.type === 'error' ? r.value.message : 'the REPL answered a tactic with a command response';
  return { ok: false, kind: isHeartbeatStop(error) ? 'heartbeats' : 'lean', error };
}

export type StepView =
  | {
      ok: true;
      goals: string[];
      view: { goals: string[]; messages: SearchMessage[]; sorries: string[]; proofStatus: string };
    }
  | { ok: false; kind: 'lean' | 'heartbeats'; error: string };

export function outcomeOf(c: CachedStep): StepView {
  if (!c.ok) return c;
  return {
    ok: true,
    goals: c.goals,
    view: { goals: c.goals, messages: c.messages, sorries: c.sorries, proofStatus: c.proofStatus },
  };
}

/** A start's answer, positions moved from the command sent back onto the content. */
export function startView(
  roots: readonly SearchState[],
  answer: RootAnswer,
  origin: LeanPosition,
): Pick<GoalStartResult, 'states' | 'messages'> {
  return {
    states: roots.map((s) => {
      const pos = answer.sorries[s.sorry]?.pos;
      return { state: s.id, goals: [...s.goals], ...(pos ? { pos: shiftPos(pos, origin) } : {}) };
    }),
    messages: answer.messages.map((m) => {
      const v = toSearchMessage(m);
      return { ...v, pos: shiftPos(v.pos, origin), ...(v.endPos ? { endPos: shiftPos(v.endPos, origin) } : {}) };
    }),
  };
}
