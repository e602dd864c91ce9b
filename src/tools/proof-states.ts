/**
 * The proof state at the end of each line of a tactic proof, from Lean's tactic steps (each
 * tactic's range, goals before and goals after; src/backend/protocol/infotree.ts), as AXLE's
 * `extract_proof_states` documents it: "the goal state at the end of each line, as shown in a
 * Lean editor's goal panel; lines with no tactic proof state are omitted"
 * [axiom-lean-engine 1023f1f: docs/tools/extract_proof_states.md].
 *
 * At the end of a line, as Lean's goal panel chooses [lean4 src/Lean/Server/InfoUtils.lean,
 * `InfoTree.goalsAt?`: the innermost tactic whose range plus trailing whitespace holds the
 * cursor; the goals after it, except for a tactic with a nested tactic still to come, whose
 * goals before are shown]:
 * - just after a tactic (only whitespace or a comment since it ended): the goals after it, of
 *   tactics ending together the innermost;
 * - inside a tactic not finished there (`induction … with` before its cases, a `·` block):
 *   its goals before while a nested tactic is still to come;
 * - on the line of `by`, before the first tactic: that tactic's goals before.
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
  /** The last step nested in this one that has finished (of steps ending together, the innermost). */
  lastDone: TacticStep | undefined;
}

/** The lines a proof spans: from its first tactic's line (or the `by` line just above it) to its last. */
function proofLines(first: TacticStep, lines: readonly string[]): number {
  const above = lines[first.pos.line - 2];
  const lineStart = lines[first.pos.line - 1]!.slice(0, first.pos.column).trim() === '';
  return above !== undefined && lineStart && /\bby\s*$/.test(above) ? first.pos.line - 1 : first.pos.line;
}

const blank = (s: string) => {
  const t = s.trim();
  return t === '' || t.startsWith('--');
};

/** Whether only whitespace and comments lie between `p` and the end of line `line` (the step's trailing whitespace). */
function trailing(p: Pos, line: number, lines: readonly string[], nonBlank: readonly number[]): boolean {
  const rest = [...lines[p.line - 1]!].slice(p.column).join('');
  return blank(rest) && nonBlank[line]! === nonBlank[p.line]!;
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
  // nonBlank[l]: lines 1..l holding something besides whitespace and comments.
  const nonBlank = [0];
  for (const l of lines) nonBlank.push(nonBlank.at(-1)! + (blank(l) ? 0 : 1));
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
    // Finished by the end of this line: recorded on the step that holds it. An outer step ending
    // where its last nested one ends passes that one on (the innermost wins, as in Lean).
    while (stack.length > 0 && before(stack.at(-1)!.step.endPos, end)) {
      const o = stack.pop()!;
      const inner = o.lastDone;
      const done =
        inner && inner.endPos.line === o.step.endPos.line && inner.endPos.column === o.step.endPos.column
          ? inner
          : o.step;
      if (stack.length > 0) stack.at(-1)!.lastDone = done;
      else lastDone = done;
    }
    const inside = stack.at(-1);
    const recent = inside ? inside.lastDone : lastDone;
    const state =
      recent && (trailing(recent.endPos, line, lines, nonBlank) || !inside)
        ? show(recent.goalsAfter)
        : inside
          ? show(inside.step.goalsBefore)
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
