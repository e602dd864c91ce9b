/**
 * The first-contact doctor's checks: every assumption the code makes about Lean and its REPL,
 * run against a real REPL of one environment. Each check sends Lean source through the same
 * session and parsing code the daemon uses and compares what comes back with what the code
 * expects (the texts and shapes cited in lean-texts.ts, header-probe.ts, goals.ts). A check
 * never decides a result for Lean: it reports what Lean printed when the expectation fails.
 */
import { chainKeys, rootKey } from '../backend/session/keys.ts';
import { moduleProbe, readModuleProbe } from '../backend/session/module-probe.ts';
import type { CommandOutcome, LeanSession } from '../backend/session/session.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { isSorryWarning } from '../tools/decl-verdict.ts';
import { parseGoals, lemmaFromGoal } from '../tools/goals.ts';
import { GOAL_PRINTING_OPTIONS, parseAxioms, unusedVariableName } from '../tools/lean-texts.ts';
import { defeqCheck } from '../tools/verify-proof.ts';
import { parseSource } from '../syntax/source.ts';
import { scopeLimits, withBudget } from '../backend/heartbeats/max-heartbeats.ts';
import { STANDARD_AXIOMS } from '../tools/decl-verdict.ts';
import { MATHLIB_OPTIONS, setOptionCommand } from '../tools/elaboration-plan.ts';
import { helperSource, infoCommand, parseInfo, parseMeasure, wrapCommand } from '../tools/extract-lean.ts';
import { printAxiomsCommand } from '../tools/lean-texts.ts';
import {
  judgeAxiomsAnswer,
  judgeCommentVariant,
  judgeBudgetStop,
  judgeNoErrors,
  judgeNoGoals,
  judgeNoStop,
  judgeNoWrapLint,
  judgeUnknownName,
  judgeUnknownOption,
  judgeUnsolvedGoals,
  type DoctorMessage,
} from './judges.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

type Run = (texts: string[]) => Promise<CommandOutcome[]>;

const show = (o: CommandOutcome | undefined) =>
  JSON.stringify(
    o
      ? {
          messages: o.messages.map((m) => ({ severity: m.severity, pos: m.pos, data: m.data.slice(0, 200) })),
          sorries: o.sorries.map((s) => ({ pos: s.pos, goal: s.goal.slice(0, 200) })),
        }
      : null,
  );

const msgs = (o: CommandOutcome | undefined): DoctorMessage[] => o?.messages ?? [];
const hasMathlib = (env: EnvironmentConfig) => /\bimport\s+Mathlib\b/.test(env.imports);
const NOT_APPLICABLE = { ok: true, detail: 'not applicable to this header' };
/** Two verdicts that must both hold (the second is usually positive evidence that Lean ran the commands). */
const both = (a: { ok: boolean; detail: string }, b: { ok: boolean; detail: string }) => ({
  ok: a.ok && b.ok,
  detail: `${a.detail}; ${b.detail}`,
});

export interface DoctorCheck {
  name: string;
  /**
   * What the code assumes about Lean or the REPL here, in words, with where it was read (`[repo tag: file, name]`, as
   * the code's comments cite it) or that no recording holds it; a failing row prints it.
   */
  assumption: string;
  run: (run: Run, env: EnvironmentConfig) => Promise<{ ok: boolean; detail: string }>;
}

/** What each check sends and what it expects; names are the rows of the table (and of docs/environments.md's list). */
export const CHECKS: DoctorCheck[] = [
  {
    name: 'message text and position of an error',
    assumption:
      "an error comes back with Lean's message text at the line of the command that caused it [repl v4.28.0: REPL/JSON.lean, `Message.of`]",
    async run(run) {
      const [o] = await run(['theorem doctor_e : 1 + 1 = 3 := rfl']);
      const e = o?.messages.find((m) => m.severity === 'error');
      return {
        ok: e !== undefined && e.pos.line === 1,
        detail: e ? `error at ${e.pos.line}:${e.pos.column}: ${e.data.split('\n')[0]}` : `no error: ${show(o)}`,
      };
    },
  },
  {
    name: "sorry warning text and the REPL's sorries shape",
    assumption:
      "`sorry` draws the warning ``declaration uses `sorry` `` (`'sorry'` before v4.28.0) and a `sorries` entry with its position and goal " +
      '[recorded REPL transcripts v4.21.0 … v4.33.0-rc2; repl v4.28.0: REPL/JSON.lean]',
    async run(run) {
      const [o] = await run(['theorem doctor_s : True := by\n  sorry']);
      const w = o?.messages.find((m) =>
        isSorryWarning({
          severity: m.severity === 'trace' ? 'info' : m.severity,
          pos: m.pos,
          endPos: undefined,
          text: m.data,
        }),
      );
      const s = o?.sorries[0];
      const ok = w !== undefined && s !== undefined && s.pos?.line === 2 && s.goal.trim() === '⊢ True';
      return {
        ok,
        detail: ok ? `warning "${w!.data}", sorry at ${s!.pos!.line}:${s!.pos!.column} goal "${s!.goal}"` : show(o),
      };
    },
  },
  {
    name: '#print axioms format (public and private declarations)',
    assumption:
      "`#print axioms` answers `'<name>' depends on axioms: […]` or `… does not depend on any axioms`, a private " +
      'declaration under `_private.<module>.0.<name>` [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`; ' +
      'src/Lean/Modifiers.lean, `mkPrivateName`]',
    async run(run) {
      // Asked as the tools ask (printAxiomsCommand: pp.fullNames, `_root_.`), a private declaration included.
      const outs = await run([
        'theorem doctor_a : True := by\n  sorry',
        printAxiomsCommand('doctor_a'),
        'private theorem doctor_p : True := trivial',
        printAxiomsCommand('doctor_p'),
      ]);
      const a = outs[1]?.messages.map((m) => parseAxioms(m.data)).find(Boolean);
      const p = outs[3]?.messages.map((m) => parseAxioms(m.data)).find(Boolean);
      const ok = a?.name === 'doctor_a' && a.axioms.includes('sorryAx') && p?.name === 'doctor_p';
      return {
        ok,
        detail: ok
          ? `${outs[1]!.messages[0]!.data} / ${outs[3]!.messages[0]!.data}`
          : `${show(outs[1])} ${show(outs[3])}`,
      };
    },
  },
  {
    name: 'goal printing (wrapped hypothesis, anonymous instance) re-elaborates',
    assumption:
      'with pp.proofs and pp.numericTypes on, a goal prints as `name : type` hypotheses (a wide type on the next lines, ' +
      'indented) and `⊢ target`, which re-elaborate as a lemma [lean4 v4.28.0: src/Lean/Meta/PPGoal.lean, `ppGoal`; ' +
      'src/Lean/PrettyPrinter/Delaborator/Options.lean]',
    async run(run) {
      const long = Array.from({ length: 12 }, () => 'xs.length').join(' + ');
      // The goal-printing options as sorry2lemma and have2lemma send them: one `set_option` command each, first.
      const options = Object.entries(GOAL_PRINTING_OPTIONS).map(([k, v]) => setOptionCommand(k, v));
      const outs = await run([
        ...options,
        `theorem doctor_g {α : Type} [Inhabited α] (xs : List α) (hlong : ${long} = 0) : xs = xs := by\n  sorry`,
      ]);
      const o = outs[options.length];
      const goal = o?.sorries[0]?.goal;
      if (!goal) return { ok: false, detail: `no sorry goal: ${show(o)}` };
      const [g] = parseGoals(goal);
      if (!g) return { ok: false, detail: `unparsed goal: ${goal}` };
      const lemma = lemmaFromGoal('doctor_lemma', g, true);
      // The lemma as printed, with a proof, must elaborate in the same environment.
      const [back] = await run([lemma.text.replace(/:= by\n  sorry$/, ':= by\n  rfl')]);
      const errors = back?.messages.filter((m) => m.severity === 'error') ?? [];
      const ok = !lemma.inaccessible && g.hyps.every((h) => h.type.trim() !== '') && errors.length === 0;
      return {
        ok,
        detail: ok
          ? `lemma: ${lemma.text.replace(/\s+/g, ' ').slice(0, 160)}`
          : `goal ${JSON.stringify(goal)} → ${lemma.text} → ${show(back)}`,
      };
    },
  },
  {
    name: 'a let-bound hypothesis lifts to a lemma that elaborates, is proved by its value, and applies at the call site',
    assumption:
      'a let-bound hypothesis prints as `x : T := value` [lean4 v4.28.0: src/Lean/Meta/PPGoal.lean, `ppGoal`]',
    async run(run) {
      const options = Object.entries(GOAL_PRINTING_OPTIONS).map(([k, v]) => setOptionCommand(k, v));
      const outs = await run([
        ...options,
        'theorem doctor_let (m : Nat) (hm : 0 < m) : True := by\n  let n : Nat := 3\n  have h : n = 3 := sorry\n  trivial',
      ]);
      const goal = outs[options.length]?.sorries[0]?.goal;
      const [g] = goal ? parseGoals(goal) : [];
      if (!g) return { ok: false, detail: `no sorry goal: ${show(outs[options.length])}` };
      const lemma = lemmaFromGoal('doctor_let_lemma', g, false);
      // Proved by its value (a free binder `(n : Nat)` could not be), then applied where the have stood.
      const proved = lemma.text.replace(/\n  sorry$/, '\n  rfl');
      const call = `example : True := by\n  let n : Nat := 3\n  have h : n = 3 := ${['doctor_let_lemma', ...lemma.args].join(' ')}\n  trivial`;
      const back = await run([proved, call]);
      const errors = back.flatMap((o) => o?.messages.filter((m) => m.severity === 'error') ?? []);
      const ok = /let n : Nat := 3/.test(lemma.text) && errors.length === 0;
      return {
        ok,
        detail: ok
          ? `lemma: ${lemma.text.replace(/\s+/g, ' ').slice(0, 160)}`
          : `${goal} → ${lemma.text} → ${back.map(show).join(' ')}`,
      };
    },
  },
  {
    name: 'unused-variable linter text for this version',
    assumption:
      'the unused-variable linter warns ``unused variable `y` `` up to v4.30.0 and ``Variable name `y` is not explicitly ' +
      'referenced.`` from v4.31.0-rc1 [lean4 v4.24.0 … v4.30.0: src/Lean/Linter/UnusedVariables.lean; repl ' +
      'test/variables.expected.out, v4.24.0 … v4.33.0-rc2]',
    async run(run, env) {
      const [o] = await run(['theorem doctor_u (x y : Nat) : x = x := rfl']);
      const w = o?.messages.find((m) => m.severity === 'warning');
      const name = w ? unusedVariableName(w.data, env.lean_toolchain) : undefined;
      return {
        ok: name === 'y',
        detail: w ? `${w.data.split('\n')[0]} → ${name ?? 'NOT RECOGNISED'}` : `no warning: ${show(o)}`,
      };
    },
  },
  {
    name: 'mutual … end and attribute … in elaborate as one input',
    assumption:
      "`mutual … end` and `<command> in <command>` are each one command to Lean's parser, so each is sent as one input " +
      '[lean4 v4.28.0: src/Lean/Parser/Command.lean, `«mutual»`, the `in` trailing parser]',
    async run(run) {
      const outs = await run([
        'mutual\ntheorem doctor_m1 : True := trivial\ntheorem doctor_m2 : True := trivial\nend',
        'attribute [local simp] Nat.add_comm in\ntheorem doctor_in (a b : Nat) : a + b = b + a := Nat.add_comm a b',
        '#print axioms doctor_m2',
        '#print axioms doctor_in',
      ]);
      const errors = outs.flatMap((o) => o.messages.filter((m) => m.severity === 'error'));
      // Positive evidence: both declarations exist afterwards (an answer of #print axioms for each).
      const exist = [outs[2], outs[3]].every((o) => o?.messages.some((m) => parseAxioms(m.data) !== undefined));
      return {
        ok: errors.length === 0 && exist,
        detail: errors.length
          ? errors.map((e) => e.data.split('\n')[0]).join('; ')
          : exist
            ? 'no errors; both declarations exist'
            : `no #print axioms answer: ${show(outs[2])}`,
      };
    },
  },
  {
    name: '#lint reports findings as errors (Batteries/Mathlib environments)',
    assumption:
      'Batteries\' `#lint` reports findings as errors ("The `docBlame` linter reports:"), docBlame on by default [batteries ' +
      'v4.28.0: Batteries/Tactic/Lint/Frontend.lean, `formatLinterResults`; batteries 05380dd: ' +
      'Batteries/Tactic/Lint/Misc.lean, `docBlame`]',
    async run(run, env) {
      if (!/\bimport\s+(Mathlib|Batteries)\b/.test(env.imports))
        return { ok: true, detail: 'not applicable: no Batteries in the header' };
      // formatLinterResults prints "The `docBlame` linter reports:" and #lint logs it with logError
      // [batteries v4.28.0: Batteries/Tactic/Lint/Frontend.lean, `formatLinterResults`, `elab "#lint"`]; the daemon
      // turns such errors into warnings.
      // The bare `#lint` the daemon sends after the content (elaborate.ts, planCommands); docBlame runs by default
      // (`@[env_linter] def docBlame`, where docBlameThm is registered disabled) [batteries 05380dd: Batteries/Tactic/Lint/Misc.lean].
      const outs = await run(['def doctor_nodoc : Nat := 1', '#lint']);
      const e = outs[1]?.messages.find((m) => m.severity === 'error' && /docBlame/.test(m.data));
      return { ok: e !== undefined, detail: e ? e.data.split('\n')[0]! : show(outs[1]) };
    },
  },
  {
    name: "verify_proof's type check (statement scope replayed, sorried def opaque)",
    assumption:
      "a statement re-stated in its own scope (section variables replayed) has the statement's type, `(@name : type_of% " +
      '@expected)` fails when the types differ, and a sorried def made `[local irreducible]` is not unfolded [lean4 ' +
      'v4.28.0: src/Lean/Elab/BuiltinNotation.lean, `elabTypeOf`; src/Lean/ReducibilityAttrs.lean, `validate`]',
    async run(run) {
      // The exact commands verify_proof sends: a statement under section variables must match itself,
      // and a candidate that changes a statement by unfolding its sorried answer must not.
      const scoped = parseSource(
        'section\nvariable {α : Type} (xs : List α)\ntheorem doctor_len : xs.length = xs.length := sorry\nend\n',
      );
      const same = defeqCheck(scoped, scoped.decls[0]!, 0)!;
      const ok1 = await run([
        'section\nvariable {α : Type} (xs : List α)\ntheorem doctor_len : xs.length = xs.length := rfl\nend',
        same,
      ]);
      const answer = parseSource(
        'def doctor_answer : Nat := sorry\ntheorem doctor_main : doctor_answer = doctor_answer := sorry\n',
      );
      const opaque = defeqCheck(answer, answer.decls[1]!, 0, ['doctor_answer'])!;
      const bad = await run(['def doctor_answer : Nat := 3', 'theorem doctor_main : doctor_answer = 3 := rfl', opaque]);
      const err1 = ok1[1]?.messages.filter((m) => m.severity === 'error') ?? [];
      const err2 = bad[2]?.messages.filter((m) => m.severity === 'error') ?? [];
      const ok =
        ok1[1] !== undefined &&
        err1.length === 0 &&
        err2.length > 0 &&
        (bad[1]?.messages.every((m) => m.severity !== 'error') ?? false);
      return {
        ok,
        detail: ok
          ? 'scoped statement matches; unfolding a sorried answer is refused'
          : `scoped: ${show(ok1[1])}; opaque: ${show(bad[2])}`,
      };
    },
  },
  {
    name: '#print axioms after `open Classical`, inside an unclosed namespace, asked as the tools ask',
    assumption:
      '`set_option pp.fullNames true in #print axioms _root_.<name>` is answered about that declaration inside an unclosed ' +
      'namespace and lists full axiom names after `open Classical` [lean4 src/Lean/Elab/Print.lean, `printAxiomsOf`; ' +
      'src/Lean/Message.lean, `ofConstName`; src/Lean/ResolveName.lean, `resolveExact`]',
    async run(run) {
      const outs = await run([
        'namespace DoctorNs',
        'open Classical',
        'theorem doctor_em (p : Prop) : p ∨ ¬p := em p',
        printAxiomsCommand('DoctorNs.doctor_em'),
      ]);
      const v = judgeAxiomsAnswer(msgs(outs[3]), 'DoctorNs.doctor_em', ['Classical.choice']);
      const foreign =
        // Bounded input: v.detail is Lean's one-line answer to the fixed command above (three axiom
        // names), not request text, so the rescans of a `[` run cannot grow with any caller's input.
        // eslint-disable-next-line regexp/no-super-linear-move
        /\[(.*)\]/
          .exec(v.detail)?.[1]
          ?.split(', ')
          .filter((a) => a && !STANDARD_AXIOMS.has(a)) ?? [];
      return {
        ok: v.ok && foreign.length === 0,
        detail: foreign.length ? `${v.detail}; foreign: ${foreign.join(', ')}` : v.detail,
      };
    },
  },
  {
    name: 'the heartbeat budget wrap draws no Mathlib style warning (mathlib_options)',
    assumption:
      "Mathlib's `linter.style.maxHeartbeats` accepts `set_option maxHeartbeats N in` with a comment after `in`, so the " +
      "service's budget wrap draws no warning [mathlib4 Mathlib/Tactic/Linter/Style.lean, " +
      '`getSetOptionMaxHeartbeatsComment`]',
    async run(run, env) {
      if (!hasMathlib(env)) return NOT_APPLICABLE;
      const options = Object.entries(MATHLIB_OPTIONS).map(([k, v]) => setOptionCommand(k, v));
      const outs = await run([
        ...options,
        withBudget('theorem doctor_hb : True := trivial', 100_000),
        printAxiomsCommand('doctor_hb'),
      ]);
      return both(
        judgeNoWrapLint(msgs(outs[options.length])),
        judgeAxiomsAnswer(msgs(outs[options.length + 1]), 'doctor_hb', []),
      );
    },
  },
  {
    name: 'a command stopped at its heartbeat budget is recognised as the budget stop',
    assumption:
      'a command out of its budget stops with `(deterministic) timeout … maximum number of heartbeats (N) has been ' +
      "reached`, or the kernel's `(kernel) deterministic timeout` [lean4 v4.28.0: src/Lean/CoreM.lean, " +
      '`throwMaxHeartbeat`; src/Lean/Message.lean, `Kernel.Exception.toMessageData`]',
    async run(run) {
      const [o] = await run([withBudget('theorem doctor_k : (List.range 5000).length = 5000 := by decide', 1)]);
      return judgeBudgetStop(msgs(o), 1);
    },
  },
  {
    name: 'a heartbeat limit set inside a section ends with it',
    assumption:
      'a `set_option maxHeartbeats` inside a section ends at its `end`, as options live in the scope [lean4 v4.28.0: ' +
      'src/Lean/Elab/BuiltinCommand.lean, `addScope`, `elabEnd`; src/Lean/Elab/Command.lean, `Scope.opts`]',
    async run(run) {
      const texts = [
        'section',
        'set_option maxHeartbeats 1',
        'end',
        'theorem doctor_sc : (List.range 200).length = 200 := by decide',
      ];
      const outs = await run([...texts, printAxiomsCommand('doctor_sc')]);
      const v = both(judgeNoStop(msgs(outs[3])), judgeAxiomsAnswer(msgs(outs[4]), 'doctor_sc', []));
      const tracked = scopeLimits(texts)[3];
      return { ok: v.ok && tracked !== 1, detail: `${v.detail}; the backend's tracking says ${String(tracked)}` };
    },
  },
  {
    name: 'whether a module is loaded, asked with getModuleIdx? under #eval',
    assumption:
      '`#eval` of `(← Lean.getEnv).getModuleIdx? `M |>.isSome` as a `CoreM Bool` answers one info, `true` for a ' +
      'loaded module and `false` otherwise [lean4 src/Lean/Environment.lean, `Environment.getModuleIdx?`; v4.28.0: ' +
      'src/Lean/Elab/BuiltinEvalCommand.lean, `elabEvalCoreUnsafe`]; no recording holds an `#eval` answer',
    async run(run) {
      const [loaded, missing] = await run([moduleProbe('Init.Prelude')!, moduleProbe('DoctorNoSuchModule')!]);
      const a = readModuleProbe(msgs(loaded));
      const b = readModuleProbe(msgs(missing));
      return { ok: a === true && b === false, detail: `Init.Prelude: ${String(a)}, DoctorNoSuchModule: ${String(b)}` };
    },
  },
  {
    name: 'a proof that differs only in comments gets the same messages on its own lines (the comment memo)',
    assumption:
      'Lean reads comments and blank lines as whitespace [lean4 src/Lean/Parser/Basic.lean, `whitespace`] and places ' +
      "messages by tokens, so a comment variant's messages are the plain text's, on the lines the comment-free form " +
      'maps (src/backend/comment-memo.ts answers such a variant from memory); no recording holds both texts',
    async run(run) {
      const plain = 'example : (2 : Nat) + 2 = 5 := by\n  decide';
      const noisy = '-- first\nexample : (2 : Nat) + 2 = 5 := by -- why\n  -- a step\n\n  decide';
      const [a, b] = await run([plain, noisy]);
      return judgeCommentVariant(a?.messages ?? [], b?.messages ?? [], plain, noisy);
    },
  },
  {
    name: 'lean/ExtractHelper.lean elaborates (extract_decls, extract_theorems)',
    assumption:
      'lean/ExtractHelper.lean compiles against this Lean and `#lean_tool_info` prints its JSON answer; the core API ' +
      'it uses is the one its header lists [lean4 v4.28.0: src/Lean/Expr.lean, src/Lean/Environment.lean, …]',
    async run(run, env) {
      if (!/\bimport\s+(Mathlib|Lean)\b/.test(env.imports)) return NOT_APPLICABLE;
      const outs = await run([helperSource(), 'theorem doctor_x : True := trivial', infoCommand('doctor_x')]);
      // Positive evidence: the helper's own command answers.
      const answered = (outs[2]?.messages ?? []).some(
        (m) => parseInfo({ severity: 'info', pos: m.pos, endPos: undefined, text: m.data }) !== undefined,
      );
      const v = judgeNoErrors(msgs(outs[0]), 'ExtractHelper.lean');
      return {
        ok: v.ok && answered,
        detail: `${v.detail}; #lean_tool_info ${answered ? 'answered' : 'gave no answer'}`,
      };
    },
  },
  {
    name: "a declaration's messages under #lean_tool_measure are its own (extract_decls, extract_theorems)",
    assumption:
      'a declaration under `#lean_tool_measure` draws the messages it draws alone, one line down (lean/ExtractHelper.lean, ' +
      "`elabMeasure`, after [mathlib v4.28.0: Mathlib/Util/CountHeartbeats.lean]); no recording holds the wrapper's output",
    async run(run, env) {
      if (!/\bimport\s+(Mathlib|Lean)\b/.test(env.imports)) return NOT_APPLICABLE;
      // Two names of one length: the same positions, once the wrapper's line is taken off.
      const wrapped = wrapCommand('def doctor_m2 : Nat := by sorry', 0);
      const outs = await run([helperSource(), 'def doctor_m1 : Nat := by sorry', wrapped.text]);
      const below = wrapped.prefixLines;
      const plain = (outs[1]?.messages ?? []).map((m) => ({ ...m, endPos: m.endPos ?? null }));
      const inside = (outs[2]?.messages ?? [])
        .filter((m) => m.pos.line > below)
        .map((m) => ({
          ...m,
          pos: { ...m.pos, line: m.pos.line - below },
          endPos: m.endPos ? { ...m.endPos, line: m.endPos.line - below } : null,
        }));
      // Positive evidence that the wrapper ran: its own measure on its line.
      const measured = (outs[2]?.messages ?? []).some(
        (m) =>
          m.pos.line <= below &&
          m.severity === 'info' &&
          parseMeasure({ severity: 'info', pos: m.pos, endPos: undefined, text: m.data }) !== undefined,
      );
      const same = plain.length > 0 && JSON.stringify(inside) === JSON.stringify(plain);
      return {
        ok: same && measured,
        detail: `alone ${show(outs[1])}; wrapped ${show(outs[2])}; ${measured ? 'measured' : 'no measure'}`,
      };
    },
  },
  {
    name: "repair_proofs' texts: unknown option, unknown identifier, no goals, unsolved goals",
    assumption:
      'the texts repair_proofs and sorry2lemma match: `unsolved goals` then the goals with `case` tags, `no goals` ' +
      '[lean4 v4.28.0: src/Lean/Elab/Term.lean, `reportUnsolvedGoals`; src/Lean/Elab/Tactic/Basic.lean, ' +
      '`throwNoGoalsToBeProved`], `unknown identifier` [recorded: repl <tag>/dup_msg.expected.out]; no recording ' +
      'holds the unknown-option text',
    async run(run) {
      const outs = await run([
        'set_option doctor.no.such.option true',
        'theorem doctor_ui : doctor_nope = 1 := rfl',
        'theorem doctor_ng : True := by\n  trivial\n  trivial',
        'theorem doctor_ug (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor',
      ]);
      const vs = [
        judgeUnknownOption(msgs(outs[0])),
        judgeUnknownName(msgs(outs[1])),
        judgeNoGoals(msgs(outs[2])),
        judgeUnsolvedGoals(msgs(outs[3]), ['left', 'right']),
      ];
      return { ok: vs.every((v) => v.ok), detail: vs.map((v) => `${v.ok ? 'ok' : 'FAIL'} ${v.detail}`).join('; ') };
    },
  },
];

/** A check's verdict as a row of the table; a failing one also says what was assumed and where that was read. */
export function resultRow(c: { name: string; assumption: string }, v: { ok: boolean; detail: string }): CheckResult {
  return { name: c.name, ok: v.ok, detail: v.ok ? v.detail : `${v.detail}; assumed: ${c.assumption}` };
}

/** Run every check on an open session; each check gets its own chain of commands on the header. */
export async function runChecks(
  session: LeanSession,
  env: EnvironmentConfig,
  signal: AbortSignal,
): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const c of CHECKS) {
    const run: Run = async (texts) => {
      const keys = chainKeys(rootKey(env.imports), texts);
      return (
        await session.run(
          env.imports,
          keys.map((key, i) => ({ key, text: texts[i]! })),
          { signal },
        )
      ).outcomes;
    };
    try {
      out.push(resultRow(c, await c.run(run, env)));
    } catch (e) {
      out.push(resultRow(c, { ok: false, detail: `the REPL failed: ${(e as Error).message}` }));
    }
  }
  return out;
}

/** A fixed-width table: environment, check, PASS/FAIL, detail. */
export function formatTable(rows: { env: string; check: string; ok: boolean; detail: string }[]): string {
  const w1 = Math.max(11, ...rows.map((r) => r.env.length));
  const w2 = Math.max(5, ...rows.map((r) => r.check.length));
  const line = (a: string, b: string, c: string, d: string) => `${a.padEnd(w1)}  ${b.padEnd(w2)}  ${c.padEnd(4)}  ${d}`;
  return [
    line('environment', 'check', 'ok', 'detail'),
    line('-'.repeat(w1), '-'.repeat(w2), '----', '------'),
    ...rows.map((r) => line(r.env, r.check, r.ok ? 'PASS' : 'FAIL', r.detail)),
  ].join('\n');
}
