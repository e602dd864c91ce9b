/**
 * The doctor's tool checks: the Lean inputs no recording holds (test/recorded/tools.test.ts, "gap") are
 * checked by running the tools themselves on the environment's backend, the path production runs (tool →
 * elaborate → backend pool → session → REPL). Each check gives Lean a small input whose right answer is
 * known from the tool's contract, and passes only on positive evidence that Lean answered (a lemma made,
 * a theorem disproved, declarations extracted); a tool error or a missing answer is a FAIL with what came back.
 *
 * The gaps each closes: `#check @name` under pp.fullNames read by merge, disprove's attempt with
 * the theorem's namespace and `open`s replayed as written, the goal-printing options
 * (`set_option pp.proofs true` …) and the lemma re-elaborating (sorry2lemma, have2lemma), the extraction helper
 * compiling and answering (extract_decls), the info tree of original tactic nodes (extract_proof_states), and
 * verify_proof's `#check @`, `#print axioms _root_.…` and definitional-equality probes together.
 */
import type { LeanRunner } from '../backend/index.ts';
import type { ToolName } from '../contract/tools.ts';
import { parseToolRequest } from '../contract/validate.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import type { Log } from '../log.ts';
import { builtinTools } from '../tools/index.ts';
import { resultRow } from './checks.ts';
import type { ToolContext } from '../tools/types.ts';

/** A tool's JSON response, read field by field by the judges. */
export type ToolAnswer = Record<string, unknown> & {
  content?: string;
  lean_messages?: { errors: string[]; warnings: string[]; infos: string[] };
  tool_messages?: { errors: string[]; warnings: string[]; infos: string[] };
};

export type RunTool = (tool: ToolName, body: Record<string, unknown>) => Promise<ToolAnswer>;

export interface ToolCheck {
  name: string;
  /** What the tool assumes about Lean or the REPL, with where it was read or that no recording holds it (see DoctorCheck). */
  assumption: string;
  run: (runTool: RunTool) => Promise<{ ok: boolean; detail: string }>;
}

const errorsOf = (r: ToolAnswer) => [...(r.lean_messages?.errors ?? []), ...(r.tool_messages?.errors ?? [])];
const firstLines = (xs: string[]) => xs.map((x) => x.split('\n')[0]).join('; ');
const clean = (r: ToolAnswer) => errorsOf(r).length === 0;

/** A tool's output must elaborate with no error (the lemma statements it printed read back). */
/** sorry2lemma / have2lemma: the tool lifts at least one lemma from `content`, and its output elaborates cleanly. */
async function liftsAndElaboratesAgain(
  runTool: RunTool,
  tool: 'sorry2lemma' | 'have2lemma',
  content: string,
  nothingRead: string,
): Promise<{ ok: boolean; detail: string }> {
  const r = await runTool(tool, { content });
  const names = (r.lemma_names as string[] | undefined) ?? [];
  if (!clean(r) || names.length === 0)
    return { ok: false, detail: `no lemma: ${firstLines(errorsOf(r)) || nothingRead}` };
  const back = await elaboratesAgain(runTool, r.content ?? '');
  return { ok: back.ok, detail: `${names.join(', ')}; ${back.detail}` };
}

async function elaboratesAgain(runTool: RunTool, content: string): Promise<{ ok: boolean; detail: string }> {
  const back = await runTool('check', { content });
  const errors = back.lean_messages?.errors ?? [];
  return { ok: errors.length === 0, detail: errors.length ? `re-elaborated: ${firstLines(errors)}` : 're-elaborates' };
}

export const TOOL_CHECKS: ToolCheck[] = [
  {
    name: 'merge: `#check @name` under pp.fullNames (implicit arguments, different opens)',
    assumption:
      '`#check @name` under pp.fullNames prints `@name : type` with full names whatever is open, so equal statements ' +
      "print equal types [recorded: batteries <tag> `#check @` outputs]; no recording holds merge's probes",
    async run(runTool) {
      // The same theorem twice, once after `open List` (in force where the probe runs): printed with full names
      // and read after `@name :`, the types are equal and the two versions merge. Two theorems of one name
      // stating different things must not: the second is renamed (positive evidence that Lean printed types).
      const r = await runTool('merge', {
        documents: [
          'theorem doctor_mc {α : Type} (x : α) : List.replicate 2 x = [x, x] := rfl\n\n' +
            'theorem doctor_md {α : Type} (x : α) : List.replicate 1 x = [x] := rfl',
          'open List\n\ntheorem doctor_mc {α : Type} (x : α) : replicate 2 x = [x, x] := rfl\n\n' +
            'theorem doctor_md {α : Type} (x : α) : replicate 3 x = [x, x, x] := rfl',
        ],
      });
      const merged = (r.tool_messages?.infos ?? []).some((i) => i.startsWith("'doctor_mc': 2 versions merged"));
      const content = r.content ?? '';
      const sameRenamed = /doctor_mc_\d/.test(content);
      const otherRenamed = /doctor_md_\d/.test(content);
      const ok = clean(r) && merged && !sameRenamed && otherRenamed;
      return {
        ok,
        detail: ok
          ? 'equal types merged, different types renamed'
          : sameRenamed
            ? 'the same statement was renamed: the printed types differ'
            : !otherRenamed
              ? 'different statements were merged: no types were compared'
              : `not merged: ${firstLines(errorsOf(r)) || JSON.stringify(r.tool_messages)}`,
      };
    },
  },
  {
    name: "disprove: the negation attempt in the theorem's namespace and `open`s, its axioms asked",
    assumption:
      "the negation attempt, stated in the theorem's namespace with its `open`s as written, elaborates and its " +
      '`#print axioms` answers [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`]; no recording holds an attempt',
    async run(runTool) {
      const r = await runTool('disprove', {
        content: 'namespace DoctorD\nopen Nat (succ)\ntheorem doctor_w : succ 1 = 3 := sorry\nend DoctorD\n',
        terminal_tactics: ['decide'],
      });
      const disproved = (r.disproved_theorems as string[] | undefined) ?? [];
      const result = (r.results as Record<string, string> | undefined)?.['DoctorD.doctor_w'];
      return {
        ok: disproved.includes('DoctorD.doctor_w'),
        detail: `${result ?? 'no result'}${errorsOf(r).length ? `; ${firstLines(errorsOf(r))}` : ''}`,
      };
    },
  },
  {
    name: 'disprove: content that ends inside its namespace and a section; the search runs plausible on the theorem',
    assumption:
      'one `end` per name component closes the scopes the content leaves open before the probes [lean4 ' +
      'src/Lean/Elab/BuiltinCommand.lean, `addScopes`, `elabEnd`; repl: REPL/Frontend.lean, `processInput` keeps ' +
      "them between commands]; plausible's answer is shown, not judged; no recording holds these probes",
    async run(runTool) {
      // The content's open scopes are left before the probes (tools/elaborate.ts, `leaveOpenScopes`): the lemma must be
      // DoctorE.axle_disprove_0, the name whose axioms it asks. The search's answer (a counter-example with a
      // Plausible in the header; otherwise why not) is shown, not judged: the core environments have no Plausible.
      const r = await runTool('disprove', {
        content: 'namespace DoctorE\nsection\ntheorem doctor_e : 2 = 3 := sorry\n',
        terminal_tactics: ['decide'],
      });
      const disproved = (r.disproved_theorems as string[] | undefined) ?? [];
      const result = (r.results as Record<string, string> | undefined)?.['DoctorE.doctor_e'];
      return {
        ok: disproved.includes('DoctorE.doctor_e'),
        detail: `${result ?? 'no result'}${errorsOf(r).length ? `; ${firstLines(errorsOf(r))}` : ''}`,
      };
    },
  },
  {
    name: 'sorry2lemma: goals printed with the goal-printing options re-elaborate as lemmas',
    assumption:
      'goals printed with pp.proofs and pp.numericTypes re-elaborate as lemma statements [lean4 v4.28.0: ' +
      'src/Lean/Meta/PPGoal.lean, `ppGoal`; src/Lean/PrettyPrinter/Delaborator/Options.lean]; no recording prints ' +
      "a sorry's goal under these options",
    run: (runTool) =>
      liftsAndElaboratesAgain(
        runTool,
        'sorry2lemma',
        'theorem doctor_sl {α : Type} [Inhabited α] (xs : List α) (h : xs.length = 0) : xs = [] := by\n  sorry\n',
        'no sorry goal read',
      ),
  },
  {
    name: "have2lemma: a `have`'s goal, printed with the goal-printing options, re-elaborates as a lemma",
    assumption:
      'goals printed with pp.proofs and pp.numericTypes re-elaborate as lemma statements [lean4 v4.28.0: ' +
      'src/Lean/Meta/PPGoal.lean, `ppGoal`; src/Lean/PrettyPrinter/Delaborator/Options.lean]; no recording prints ' +
      "a `have`'s goal under these options",
    run: (runTool) =>
      liftsAndElaboratesAgain(
        runTool,
        'have2lemma',
        'theorem doctor_hl (a b : Nat) (h : a = b) : b = a := by\n  have hs : b = a := by\n    exact h.symm\n  exact hs\n',
        'no have goal read',
      ),
  },
  {
    name: 'extract_decls: the helper compiles and answers for each declaration',
    assumption:
      'lean/ExtractHelper.lean compiles and `#lean_tool_info` answers each declaration with a type and a type hash ' +
      "(`Expr.hash` [lean4 v4.28.0: src/Lean/Expr.lean]); no recording holds the helper's answers",
    async run(runTool) {
      const r = await runTool('extract_decls', {
        content: 'theorem doctor_x : True := trivial\n\ndef doctor_y : Nat := 1\n',
      });
      const docs = (r.documents as Record<string, { type?: string; type_hash?: unknown }> | undefined) ?? {};
      const keys = Object.keys(docs);
      const both = ['doctor_x', 'doctor_y'].every((n) => keys.some((k) => k === n || k.endsWith(`.${n}`)));
      // Positive evidence that the helper answered: the type and its hash come only from Lean.
      const answered = keys.filter((k) => docs[k]!.type && docs[k]!.type_hash !== null);
      const ok = clean(r) && both && answered.length === keys.length;
      return {
        ok,
        detail: ok
          ? `extracted ${keys.map((k) => `${k} : ${docs[k]!.type}`).join(', ')}`
          : `extracted [${keys.join(', ')}], Lean answered for [${answered.join(', ')}]; ${firstLines([...errorsOf(r), ...(r.tool_messages?.warnings ?? [])])}`,
      };
    },
  },
  {
    name: 'extract_proof_states: the info tree of original tactic nodes gives the proof state after each tactic line',
    assumption:
      '`"infotree": "original"` gives each tactic\'s range and its goals before and after [repl v4.28.0: REPL/Main.lean, ' +
      '`jsonTrees`; REPL/Lean/InfoTree/ToJson.lean]; recorded for one one-line proof only, cut from its "full" tree',
    async run(runTool) {
      const r = await runTool('extract_proof_states', {
        content:
          'theorem doctor_p (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor\n  exact hp\n  exact hq\n',
      });
      const states = (r.proof_states as { line: number; proof_state: string }[] | undefined) ?? [];
      // Positive evidence: after `constructor` (line 2) two goals remain, the second one `q`.
      const after = states.find((s) => s.line === 2)?.proof_state ?? '';
      const ok = clean(r) && /⊢ p\b/.test(after) && /⊢ q\b/.test(after);
      return {
        ok,
        detail: ok
          ? `${states.length} lines with a proof state`
          : `states ${JSON.stringify(states).slice(0, 300)}; ${firstLines(errorsOf(r))}`,
      };
    },
  },
  {
    name: 'verify_proof: a proof passes and a changed statement fails (#check @, #print axioms, defeq probe)',
    assumption:
      '`#check @`, `set_option pp.fullNames true in #print axioms _root_.<name>` and the `type_of%` probe together ' +
      'accept a proof and refuse a changed statement [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`; ' +
      "src/Lean/Elab/BuiltinNotation.lean, `elabTypeOf`]; no recording holds verify_proof's probes",
    async run(runTool) {
      const formal_statement = 'theorem doctor_v (n : Nat) : n + 0 = n := sorry\n';
      const good = await runTool('verify_proof', {
        formal_statement,
        content: 'theorem doctor_v (n : Nat) : n + 0 = n := rfl\n',
      });
      // `0 + n` does not reduce for a variable `n` (Nat.add recurses on its second argument): not the statement.
      const bad = await runTool('verify_proof', {
        formal_statement,
        content: 'theorem doctor_v (n : Nat) : 0 + n = n := Nat.zero_add n\n',
      });
      const ok = good.okay === true && bad.okay === false && (bad.lean_messages?.errors ?? []).length === 0;
      return {
        ok,
        detail: `proof: ${good.okay === true ? 'okay' : `not okay (${firstLines(errorsOf(good))})`}; changed statement: ${
          bad.okay === false ? `refused (${firstLines(bad.tool_messages?.errors ?? [])})` : 'ACCEPTED'
        }`,
      };
    },
  },
];

/** Run every tool check with the daemon's own tools on `lean` (the environment's backend). */
export async function runToolChecks(
  lean: LeanRunner,
  env: EnvironmentConfig,
  signal: AbortSignal,
  log: Log,
): Promise<{ name: string; ok: boolean; detail: string }[]> {
  const tools = builtinTools() as Partial<
    Record<ToolName, { run: (req: unknown, ctx: ToolContext) => Promise<unknown> }>
  >;
  const ctx: ToolContext = { env, signal, log, lean, progress: () => {} };
  const runTool: RunTool = async (tool, body) =>
    (await tools[tool]!.run(parseToolRequest(tool, { ...body, environment: env.name }), ctx)) as ToolAnswer;
  const out: { name: string; ok: boolean; detail: string }[] = [];
  for (const c of TOOL_CHECKS) {
    try {
      out.push(resultRow(c, await c.run(runTool)));
    } catch (e) {
      out.push(resultRow(c, { ok: false, detail: `the tool failed: ${(e as Error).message}` }));
    }
  }
  return out;
}
