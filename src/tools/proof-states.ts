/**
 * The proof state at the end of each line of a tactic proof, from Lean's tactic steps (each
 * tactic's range, goals before and goals after; src/backend/protocol/infotree.ts), as AXLE's
 * `extract_proof_states` documents it: "the goal state at the end of each line, as shown in a
 * Lean editor's goal panel; lines with no tactic proof state are omitted"
 * [axiom-lean-engine 1023f1f: docs/tools/extract_proof_states.md].
 *
 * At the end of a line:
 * - inside a tactic that has not finished there (a multi-line `induction … with`, a `·` block):
 *   the goals after the last tactic nested in it that has finished by then, else its goals before;
 * - past every tactic that started (between tactics, at the proof's last line): the goals after
 *   the last tactic finished (of equal ends, the outermost, which holds the whole proof's state);
 * - on the line of `by` before the first tactic: that tactic's goals before.
 * Goals are joined by a blank line, as the goal panel lists them; none is "no goals" (AXLE's
 * recorded example shows it).
 *
 * One sweep over the steps sorted by position and the lines in order: O(n log n + lines).
 */
import type { TacticStep } from '../backend/index.ts';

export interface LineState {
  line: number;
  proof_state: string;
}

/** AXLE's cap on `proof_states` (characters, all states together). */
export const PROOF_STATES_CAP = 10_000_000;

type Pos = { line: number; column: number };
const before = (a: Pos, b: Pos) => a.line < b.line || (a.line === b.line && a.column <= b.column);
const show = (goals: readonly string[]) => (goals.length === 0 ? 'no goals' : goals.join('\n\n'));

interface Open {
  step: TacticStep;
  /** The last step nested in this one that has finished. */
  lastDone: TacticStep | undefined;
}

/** The lines a proof spans: from its first tactic's line (or the `by` line just above it) to its last. */
function proofLines(first: TacticStep, lines: readonly string[]): number {
  const above = lines[first.pos.line - 2];
  const lineStart = lines[first.pos.line - 1]!.slice(0, first.pos.column).trim() === '';
  return above !== undefined && lineStart && /\bby\s*$/.test(above) ? first.pos.line - 1 : first.pos.line;
}

export function proofStatesByLine(
  steps: readonly TacticStep[],
  content: string,
  cap = PROOF_STATES_CAP,
): { states: LineState[]; truncatedAt: number | undefined } {
  // Outer before inner at the same start: the longer range first.
  const sorted = [...steps].sort(
    (a, b) =>
      a.pos.line - b.pos.line ||
      a.pos.column - b.pos.column ||
      b.endPos.line - a.endPos.line ||
      b.endPos.column - a.endPos.column,
  );
  const lines = content.split('\n');
  const states: LineState[] = [];
  const stack: Open[] = [];
  let lastDone: TacticStep | undefined;
  let next = 0;
  let size = 0;
  let line = sorted.length > 0 ? proofLines(sorted[0]!, lines) : Infinity;
  while (line <= lines.length && (next < sorted.length || stack.length > 0)) {
    const end = { line, column: [...lines[line - 1]!].length };
    while (next < sorted.length && before(sorted[next]!.pos, end)) {
      stack.push({ step: sorted[next]!, lastDone: undefined });
      next++;
    }
    // Finished by the end of this line: recorded on the step that holds it (inner first, so an
    // outer one ending at the same place replaces it: the outermost state wins).
    while (stack.length > 0 && before(stack.at(-1)!.step.endPos, end)) {
      const done = stack.pop()!.step;
      if (stack.length > 0) stack.at(-1)!.lastDone = done;
      else lastDone = done;
    }
    const inside = stack.at(-1);
    const state = inside
      ? show(inside.lastDone ? inside.lastDone.goalsAfter : inside.step.goalsBefore)
      : lastDone
        ? show(lastDone.goalsAfter)
        : show(sorted[next]!.goalsBefore);
    if (size + state.length > cap) return { states, truncatedAt: line };
    size += state.length;
    states.push({ line, proof_state: state });
    line++;
    // Between proofs: go on at the next proof's first line.
    if (stack.length === 0 && next < sorted.length && sorted[next]!.pos.line > line) {
      lastDone = undefined;
      line = Math.max(line, proofLines(sorted[next]!, lines));
    } else if (stack.length === 0 && next >= sorted.length) break;
  }
  return { states, truncatedAt: undefined };
}
