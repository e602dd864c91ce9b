/**
 * extract_proof_states: the REPL's recorded info trees (../shared/recorded/repl/<tag>, by path)
 * read into tactic steps and placed on lines; the placement rules on a multi-line proof whose
 * goals are opaque labels (no recording has a multi-line info tree); the cap; the tool through
 * a runner double answering the recorded command with its recorded info tree.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { shiftPos } from '../../src/backend/index.ts';
import { tacticSteps, type TacticStep } from '../../src/backend/protocol/infotree.ts';
import { commandRequest } from '../../src/backend/protocol/requests.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { extract_proof_states } from '../../src/tools/extract-proof-states.ts';
import { proofStatesByLine } from '../../src/tools/proof-states.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

const TAG = 'v4.28.0';
const skip = sharedSkip(`recorded/repl/${TAG}`);

/** A transcript's first command and its answer (JSON objects separated by blank lines). */
function recorded(name: string): { cmd: string; infotree: unknown } {
  const dir = sharedPath(`recorded/repl/${TAG}`)!;
  const first = (f: string) =>
    JSON.parse(readFileSync(path.join(dir, f), 'utf8').split(/\n\s*\n/)[0]!) as Record<string, unknown>;
  return { cmd: first(`${name}.in`).cmd as string, infotree: first(`${name}.expected.out`).infotree };
}

const show = (goals: string[]) => (goals.length === 0 ? 'no goals' : goals.join('\n\n'));

t.test('the REPL’s info trees: tactic nodes with their ranges and goals', { skip }, async (t) => {
  const sub = recorded('infotree'); // "infotree": "substantive"
  const steps = tacticSteps(sub.infotree);
  t.equal(steps.length, 1);
  t.same(steps[0]!.pos, { line: 1, column: 28 });
  t.ok(steps[0]!.goalsBefore.length > 0, 'goals before');
  // One line, whose end is past the only tactic: the goals after it.
  t.same(proofStatesByLine(steps, sub.cmd).states, [{ line: 1, proof_state: show(steps[0]!.goalsAfter) }]);
  const full = recorded('infotree_theorem'); // "infotree": "full": terms and commands are skipped
  const fsteps = tacticSteps(full.infotree);
  t.ok(fsteps.length >= 1, `${fsteps.length} tactic nodes among the full tree`);
  const outer = [...fsteps].sort((a, b) => a.pos.column - b.pos.column)[0]!;
  t.same(proofStatesByLine(fsteps, full.cmd).states, [{ line: 1, proof_state: show(outer.goalsAfter) }]);
});

t.test('placement on lines: inside a multi-line tactic, after a nested one, the `by` line', async (t) => {
  // AXLE's documented example [axiom-lean-engine 1023f1f docs/tools/extract_proof_states.md]; its
  // steps are laid out as Lean ranges them, with labels for goals (these are not Lean's texts).
  const content =
    'import Mathlib\ntheorem foo (n : Nat) : n + 0 = n := by\n  induction n with\n  | zero => rfl\n  | succ k ih => simp';
  const step = (l1: number, c1: number, l2: number, c2: number, before: string[], after: string[]): TacticStep => ({
    pos: { line: l1, column: c1 },
    endPos: { line: l2, column: c2 },
    goalsBefore: before,
    goalsAfter: after,
  });
  const steps = [
    step(3, 2, 5, 20, ['G'], ['after seq']), // the tactic sequence
    step(3, 2, 5, 20, ['G'], ['after induction']), // induction … with
    step(4, 12, 4, 15, ['G-zero'], []), // rfl
    step(5, 17, 5, 20, ['G-succ'], ['after simp']), // simp
  ];
  t.same(proofStatesByLine(steps, content).states, [
    { line: 2, proof_state: 'G' }, // the `by` line: before the first tactic
    { line: 3, proof_state: 'G' }, // inside `induction`, nothing in it finished yet
    { line: 4, proof_state: 'no goals' }, // after `rfl`, inside `induction`
    { line: 5, proof_state: 'after simp' }, // three steps end here: the innermost
  ]);
  // A line of the tactic's own syntax with a nested tactic still to come: the goals before it;
  // a comment line after a tactic: still that tactic's goals after.
  const split = content.replace('| succ k ih => simp', '-- the other case\n  | succ k ih =>\n    simp');
  const later = [
    step(3, 2, 7, 8, ['G'], ['after seq']),
    step(3, 2, 7, 8, ['G'], ['after induction']),
    step(4, 12, 4, 15, ['G-zero'], ['after rfl']),
    step(7, 4, 7, 8, ['G-succ'], ['after simp']),
  ];
  t.same(
    proofStatesByLine(later, split).states.map((s) => s.proof_state),
    ['G', 'G', 'after rfl', 'after rfl', 'G', 'after simp'],
  );
  // Two proofs: lines between them have no state; a second `by` line gets its first goals.
  const two = `${content}\n\ntheorem bar : True := by\n  trivial`;
  const more = [...steps, step(8, 2, 8, 9, ['H'], [])];
  t.same(
    proofStatesByLine(more, two).states.map((s) => s.line),
    [2, 3, 4, 5, 7, 8],
  );
  t.equal(proofStatesByLine(more, two).states[4]!.proof_state, 'H');
  // Several goals are listed with a blank line between them.
  t.equal(proofStatesByLine([step(1, 0, 1, 5, ['A'], ['B', 'C'])], 'exact').states[0]!.proof_state, 'B\n\nC');
});

t.test('the cap: states past it are omitted and the line is named', async (t) => {
  const big = 'x'.repeat(40);
  const steps = [1, 2, 3].map((l) => ({
    pos: { line: l, column: 0 },
    endPos: { line: l, column: 1 },
    goalsBefore: [],
    goalsAfter: [big],
  }));
  const r = proofStatesByLine(steps, 'a\nb\nc', 100);
  t.equal(r.states.length, 2);
  t.equal(r.truncatedAt, 3);
  t.equal(proofStatesByLine(steps, 'a\nb\nc', 120).truncatedAt, undefined);
});

t.test('the tool: one elaboration asking for the info tree, states on content lines', { skip }, async (t) => {
  const rec = recorded('infotree');
  const lean = scriptedRunner((c) => {
    if (c.text !== rec.cmd) throw new Error(`not recorded: ${c.text}`);
    const steps = tacticSteps(rec.infotree).map((x) => ({
      ...x,
      pos: shiftPos(x.pos, c.origin),
      endPos: shiftPos(x.endPos, c.origin),
    }));
    return { tactics: steps };
  });
  const content = `-- a comment line first\n${rec.cmd}\n`;
  const r = await extract_proof_states.run(
    parseToolRequest('extract_proof_states', { content, environment: 'x' }),
    toolCtx(lean),
  );
  t.equal(lean.jobs.length, 1);
  t.same(
    lean.jobs[0]!.commands.map((c) => c.infotree),
    [true],
    'the content’s command asked with its info tree',
  );
  const steps = tacticSteps(rec.infotree);
  t.same(r.proof_states, [{ line: 2, proof_state: show(steps[0]!.goalsAfter) }], 'on the content’s line 2');
  t.equal(r.truncated, false);
  t.same(commandRequest('x', 3, 'original'), { cmd: 'x', env: 3, infotree: 'original' }, 'sent as the REPL reads it');
});
