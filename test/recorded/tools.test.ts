/**
 * The Lean-backed tools on recorded Lean (issue 27 §2): the real tool code, backend, session and
 * protocol on the recorded REPL of v4.28.0 (recorded-launch.ts). Where a tool's answer rests on
 * recordings, its Lean messages are compared with the recorded response, printed as AXLE prints
 * them (issue 29 item 10). Where a tool needs an input no recording holds (its own probes and
 * option commands), the test says which: the recorded REPL refuses it and the tool reports a Lean
 * failure; those inputs are the gaps a machine with Lean (npm run lean:doctor) has to cover.
 */
import path from 'node:path';
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import type { ToolName } from '../../src/contract/tools.ts';
import { builtinTools } from '../../src/tools/index.ts';
import { readExchanges } from './repl-source.ts';
import { recordedLean, recordedSkip, recordedTagDir, type RecordedLean } from './recorded-launch.ts';

const TAG = 'v4.28.0';
const SKIP = recordedSkip(TAG);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool's JSON response, read field by field
type Json = any;
const tools = builtinTools() as Record<string, { run: (req: unknown, ctx: unknown) => Promise<Json> }>;

interface RecordedMsg {
  severity: 'error' | 'warning' | 'info';
  pos: { line: number; column: number };
  endPos?: { line: number; column: number } | null;
  data: string;
}

/**
 * The recorded response to `cmd` in `tag`'s `file` (fresh, or on `env`), as AXLE's message set, built here from the
 * recorded fields; `down` lines when the command starts further down the returned content (after a header).
 */
function recordedSet(tag: string, file: string, cmd: string, env?: number, down = 0) {
  const x = readExchanges(path.join(recordedTagDir(tag)!, file)).find(
    (e) => e.request.cmd === cmd && e.request.env === env,
  )!;
  const set = { errors: [] as string[], warnings: [] as string[], infos: [] as string[] };
  for (const m of (x.response.messages ?? []) as RecordedMsg[]) {
    const end = m.endPos ? `-${m.endPos.line + down}:${m.endPos.column}` : '';
    const at = `${m.pos.line + down}:${m.pos.column}`;
    const s = m.severity === 'info' ? m.data : `-:${at}${end}: ${m.severity}: ${m.data}`;
    set[m.severity === 'error' ? 'errors' : m.severity === 'warning' ? 'warnings' : 'infos'].push(`${s}\n`);
  }
  return set;
}

/** One recorded backend per tag for the file (a refusal ends only its process; the pool starts another). */
const backends = new Map<string, RecordedLean>();
function on(tag: string): RecordedLean & { refusedHere: () => string[] } {
  let rec = backends.get(tag);
  if (!rec) backends.set(tag, (rec = recordedLean(t, tag)!));
  const before = rec.refusals().length;
  return { ...rec, refusedHere: () => rec.refusals().slice(before) };
}

const run = (tool: string, body: Record<string, unknown>, ctx: unknown) =>
  tools[tool]!.run(parseToolRequest(tool as ToolName, { environment: 'x', ...body }), ctx);

const SORRY = 'example : 1 = 0 := sorry';
const UNSOLVED = 'example : 1 = 0 := by\n  cases 1\n  rfl\n  apply ?succ';
const NO_GOALS = 'example : True := by\n  sorry\n  sorry';
const UNUSED = 'def f (h : Int) : Nat := by constructor';
const HAVE = 'theorem foo (x : Int) : x = x := by\n  have h : x = 1 := by sorry';

/** Tools whose whole Lean side is recorded for this content: their lean_messages are the recording's. */
const RECORDED: [tag: string, tool: string, content: string, file: string, cls: string][] = [
  ['v4.28.0', 'check', SORRY, 'app_type_mismatch.in', 'declaration uses `sorry` (backticks)'],
  ['v4.24.0', 'check', SORRY, 'app_type_mismatch.in', "declaration uses 'sorry' (straight quotes)"],
  ['v4.28.0', 'check', UNSOLVED, 'app_type_mismatch.in', 'unsolved goals'],
  ['v4.28.0', 'check', NO_GOALS, 'no_goal_sorry_2.in', 'no goals'],
  ['v4.28.0', 'repair_proofs', SORRY, 'app_type_mismatch.in', 'declaration uses `sorry`'],
  ['v4.28.0', 'simplify_theorems', SORRY, 'app_type_mismatch.in', 'declaration uses `sorry`'],
  ['v4.28.0', 'normalize', SORRY, 'app_type_mismatch.in', 'declaration uses `sorry`'],
  ['v4.28.0', 'normalize', UNUSED, 'infotree.in', 'unused variable (recorded with infotree)'],
];

for (const [tag, tool, content, file, cls] of RECORDED) {
  t.test(`${tool} on recorded Lean ${tag}: ${cls}`, { skip: recordedSkip(tag) }, async (t) => {
    const rec = on(tag);
    const r = await run(tool, { content }, rec.ctx());
    t.same(rec.refusedHere(), [], 'every input the tool sent was recorded');
    const want = recordedSet(tag, file, content);
    t.same(r.lean_messages, want, "Lean's recorded messages, as AXLE prints them");
    if (tool === 'check') {
      t.equal(r.okay, want.errors.length === 0, 'okay follows the recorded errors');
      t.same(r.failed_declarations, ['example'], 'the declaration fails (sorry or errors)');
      if (want.errors.length === 0)
        t.same(r.tool_messages.warnings, ["Declaration 'example' uses 'sorry'"], 'the sorry warning is recognised');
    }
  });
}

t.test(
  "check with a recorded header: Mathlib.Tactic.Cases, `induction'` leaves two cases",
  { skip: SKIP },
  async (t) => {
    const header = 'import Mathlib.Tactic.Cases';
    const body = "example {x : Nat} : x + 1 > x := by\n  induction' x with x hx";
    // Mathlib/test/H20231115_3.in: the header alone (env 0), then the example on env 0.
    const rec = recordedLean(t, TAG, header)!;
    const r = await run('check', { content: body }, rec.ctx());
    t.same(rec.refusals(), [], 'the header and the command were recorded');
    t.equal(r.content, `${header}\n\n${body}`, "ignore_imports: the environment's header is put in front");
    t.same(
      r.lean_messages,
      recordedSet(TAG, 'Mathlib/test/H20231115_3.in', body, 0, 2),
      'two lines down, after the header',
    );
    t.match(r.lean_messages.errors[0], /unsolved goals\ncase zero[\s\S]*case succ/, 'the case tags Lean printed');
    t.equal(r.okay, false);
  },
);

t.test(
  'a warning about an earlier `variable` lands on that variable (issue 27 §3 defect 10)',
  { skip: SKIP },
  async (t) => {
    // variables.in: the unused `y` of `variable (x y : Nat)` is reported in the answer to the NEXT input,
    // at the first input's position (line 1, column 12).
    const recorded = readExchanges(path.join(recordedTagDir(TAG)!, 'variables.in'));
    const content = recorded.map((x) => x.request.cmd as string).join('\n\n');
    const rec = on(TAG);
    const r = await run('normalize', { content }, rec.ctx());
    t.same(rec.refusedHere(), [], 'all recorded');
    const w = (recorded[1]!.response.messages as RecordedMsg[])[0]!;
    t.equal(w.pos.line, 1, 'recorded in the second answer, at line 1 of the first input');
    const at = `-:${w.pos.line}:${w.pos.column}-${w.endPos!.line}:${w.endPos!.column}: warning: ${w.data}\n`;
    t.ok(
      r.lean_messages.warnings.includes(at),
      `reported at the variable: ${JSON.stringify(r.lean_messages.warnings[0])}`,
    );
  },
);

/**
 * A tool reads a recorded message and acts on it: the edit it then sends is the proof that it read the
 * message right. The edited text itself was never recorded, so the recorded REPL refuses it, and the
 * test checks that exactly that edit was asked for.
 */
const RECOGNISED: [tag: string, tool: string, body: Record<string, unknown>, edit: string, cls: string][] = [
  [
    'v4.28.0',
    'simplify_theorems',
    { content: UNUSED, theorems_only: false },
    'def f (_ : Int) : Nat := by constructor',
    'unused variable `h` (v4.28.0 wording)',
  ],
  [
    'v4.32.0',
    'simplify_theorems',
    { content: UNUSED, theorems_only: false },
    'def f (_ : Int) : Nat := by constructor',
    'Variable name `h` is not explicitly referenced. (v4.32.0 wording)',
  ],
  [
    'v4.28.0',
    'repair_proofs',
    { content: NO_GOALS, theorems_only: false, repairs: ['remove_extraneous_tactics'] },
    'example : True := by\n  sorry',
    'No goals to be solved',
  ],
  [
    'v4.28.0',
    'repair_proofs',
    { content: HAVE, repairs: ['insert_sorries'] },
    `${HAVE}\n  sorry`,
    'unsolved goals at `by`',
  ],
];

for (const [tag, tool, body, edit, cls] of RECOGNISED) {
  t.test(`${tool} reads the recorded ${cls} and acts on it (${tag})`, { skip: recordedSkip(tag) }, async (t) => {
    const rec = on(tag);
    const r = await run(tool, body, rec.ctx());
    const refused = rec.refusedHere();
    t.comment(`refused: ${refused.map((s) => s.slice(0, 160)).join(' | ')}`);
    t.equal(refused[0], `no recording of ${JSON.stringify(edit)} on init`, 'the first unrecorded input is the edit');
    t.match(
      r.tool_messages.errors.join('\n'),
      /Lean failed while elaborating/,
      'the unanswered edit is reported, not taken as rejected',
    );
  });
}

/** Tools that need an input no recording holds: which one, as the recorded REPL reports it. */
const GAPS: [tool: string, body: Record<string, unknown>, missing: RegExp, why: string][] = [
  [
    'check',
    { content: 'theorem thm1 : 1 = 1 := sorry' },
    /#print axioms (?:_root_\.)?thm1/,
    'no recording of `#print axioms`',
  ],
  [
    'verify_proof',
    { content: 'theorem thm1 : 1 = 1 := sorry', formal_statement: 'theorem thm1 : 1 = 1 := sorry' },
    /#check @thm1|#print axioms (?:_root_\.)?thm1/,
    'no recording of its `#check @name` probe (pp.fullNames) or `#print axioms`',
  ],
  ['sorry2lemma', { content: SORRY }, /set_option pp\.proofs true/, 'goal printing options are never recorded'],
  [
    'have2lemma',
    { content: 'example : True := by\n  have h : set Nat := by sorry\n  sorry' },
    /set_option pp\.proofs true/,
    'goal printing options are never recorded',
  ],
  ['disprove', { content: 'theorem ex : False := sorry' }, /axle_disprove_0/, 'its negation attempts are not recorded'],
  [
    'merge',
    { documents: [SORRY, SORRY] },
    /example : 1 = 0 := sorry/,
    'the same example twice in one env is not recorded',
  ],
  ['extract_decls', { content: SORRY }, /The Lean side of extract_decls/, 'the helper metaprogram is not recorded'],
  ['extract_theorems', { content: SORRY }, /The Lean side of extract_decls/, 'the helper metaprogram is not recorded'],
];

for (const [tool, body, missing, why] of GAPS) {
  t.test(`${tool}: the input it needs has no recording (${why})`, { skip: SKIP }, async (t) => {
    const rec = on(TAG);
    const r = await run(tool, body, rec.ctx());
    const refused = rec.refusedHere();
    t.comment(`refused: ${refused.map((s) => s.slice(0, 160)).join(' | ')}`);
    t.ok(
      refused.some((s) => missing.test(s)),
      `the recorded REPL refused ${missing}`,
    );
    t.match(
      r.tool_messages.errors.join('\n'),
      /Lean failed while elaborating/,
      'reported as a Lean failure, never answered',
    );
  });
}

t.test('comparator: not a REPL tool', async (t) => {
  t.comment(
    'comparator runs the comparator binary (src/backend/comparator), not the REPL; ../shared/recorded holds no comparator run, so it has no recorded test',
  );
  t.notOk(tools.comparator, 'without a comparator backend the tool is not registered');
});
