/**
 * Lean's answers read into an elaboration's result: each command's outcome put where its role
 * (elaboration-plan.ts) says, on content positions: the content's messages, sorries and tactic steps,
 * the option errors, the `#print axioms` answers, the probes' and the preamble's messages.
 */
import { shiftPos, type ElabCommand, type ElabResult, type LeanMessage } from '../backend/index.ts';
import { nameIdentity, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { messagesIn } from './decl-verdict.ts';
import { NONE } from '../util/arrays.ts';
import type { CommandOutcome, ElabOptions, Elaborated, PreparedContent } from './elaborate.ts';
import { MATHLIB_OPTIONS, type Piece, type Role } from './elaboration-plan.ts';
import { parseAxioms, userConstName } from './lean-texts.ts';
import type { ToolContext } from './types.ts';
import { refileVariableWarning, type SentUnit } from './variable-warnings.ts';

/**
 * The maps of an elaboration that asked Lean nothing of their kind (most: a miss of `check` asks
 * no probe, and no axioms of an `example`): one shared empty map, typed read-only for the tools; the
 * first answer gives the elaboration a map of its own (`ownMap`). Three maps per request were ~0.6 kB.
 */
const NO_ENTRIES: ReadonlyMap<never, never> = new Map<never, never>();

/** `map`, or a new map in its place when it is the shared empty one: the only way elaborate.ts writes them. */
function ownMap<K, V>(map: ReadonlyMap<K, V>): Map<K, V> {
  return map === NO_ENTRIES ? new Map() : (map as Map<K, V>);
}

/** What an elaboration holds before Lean has answered anything. */
export function emptyElaborated<K>(prepared: PreparedContent, file: SourceFile, parseMs: number): Elaborated<K> {
  return {
    content: prepared.content,
    file,
    messages: [],
    tactics: [],
    commands: [],
    axioms: NO_ENTRIES,
    axiomsUnanswered: NO_ENTRIES,
    probes: NO_ENTRIES,
    preamble: [],
    toolErrors: [],
    // The preparation's own list (made for this request).
    toolWarnings: prepared.warnings,
    failure: undefined,
    parseMs,
    elaborateMs: 0,
    reused: 0,
    sent: 0,
  };
}

/**
 * Each command's outcome read by its role; the content's own messages refiled where Lean sent them late. Returns
 * whether the axiom questions chained to the last unit, if any, came back clean (`chainedAnswersClean`).
 */
export function readOutcomes<K>(
  result: ElabResult,
  roles: Role[],
  commands: readonly ElabCommand[],
  opts: ElabOptions,
  ctx: ToolContext,
  out: Elaborated<K>,
): boolean {
  // The `variable` units sent so far: a later input's messages may belong to one of them.
  let variables: SentUnit[] | undefined;
  const answers = result.commands;
  for (let i = 0; i < answers.length; i++) {
    const r = answers[i]!;
    const role = roles[i]!;
    if (role.kind !== 'body') {
      readOutcome(r, role, opts, out, r.messages);
      continue;
    }
    // A `variable` binder's linter warning can arrive with a later input (variable-warnings.ts).
    const isVariable = role.pieces.some(isVariablePiece);
    if (r.messages.length === 0 && !isVariable) {
      readOutcome(r, role, opts, out, []);
      continue;
    }
    const sent = commands[i]!;
    const unit = { origin: sent.origin, text: sent.text, variable: isVariable };
    const earlier = variables ?? NONE;
    const messages = r.messages.map((m) => refileVariableWarning(m, unit, earlier, ctx.env.lean_toolchain));
    if (isVariable) (variables ??= []).push(unit);
    readOutcome(r, role, opts, out, messages);
  }
  const chained = roles.findIndex(isChained);
  if (chained < 0) return true;
  const asked = roles[chained]!.key as Asked;
  readAxiomsBatch(answers[chained]?.tail ?? NONE, asked, roles[chained]!.line, out);
  return chainedAnswersClean(answers[chained]?.tail, asked, roles[chained]!.line, out);
}

/** A content unit with the axiom questions on the lines after it (elaboration-plan.ts, `planQuestions`). */
const isChained = (r: Role) => r.kind === 'body' && r.key !== undefined;

/** The declarations whose axioms are asked, one a line. */
type Asked = readonly (SourceDecl & { fullName: string })[];

/**
 * Whether the answers to the questions chained after the last unit are clean: each question's line holds one
 * answer (an info), or one refusal (an error) about a declaration that has errors of its own (Lean did not add it:
 * "unknown constant"), and nothing lies off their lines; warnings are not counted (a linter may warn about the
 * question's `set_option`). Otherwise the unit ended unfinished and took the questions into its own parse: Lean
 * reports that parse error on a question's line, where the unit's own error would have been at the end of input,
 * so the unit's messages are not what Lean says about it alone (elaborate.ts then elaborates it again). No message
 * at all (a runner that answers no question) is clean: the unit's parse left nothing there, and every question
 * reads "no answer", which no verdict passes (fail closed).
 */
function chainedAnswersClean(
  tail: readonly LeanMessage[] | undefined,
  asked: Asked,
  first: number,
  out: Elaborated,
): boolean {
  const said = tail?.filter(isNotWarning) ?? NONE;
  if (said.length === 0) return true;
  const byLine = questionLines(said, asked.length, first);
  let placed = 0;
  for (let k = 0; k < asked.length; k++) {
    const line = byLine[k]!;
    placed += line.length;
    if (line.length !== 1) return false;
    const d = asked[k]!;
    const clean = line[0]!.severity === 'info' ? out.axioms.has(d.fullName) : messagesIn(out, d, isError).length > 0;
    if (!clean) return false;
  }
  return placed === said.length;
}

const isError = (m: LeanMessage) => m.severity === 'error';
const isNotWarning = (m: LeanMessage) => m.severity !== 'warning';

/** The messages of each of `n` questions, the k-th on line `first + k`. */
function questionLines(messages: readonly LeanMessage[], n: number, first: number): LeanMessage[][] {
  const byLine: LeanMessage[][] = [];
  for (let k = 0; k < n; k++) byLine.push([]);
  for (const m of messages) byLine[m.pos.line - first]?.push(m);
  return byLine;
}

const isVariablePiece = (p: Piece) => p.cmd.kind === 'variable';

function readOutcome(
  r: ElabResult['commands'][number],
  role: Role,
  opts: ElabOptions,
  out: Elaborated,
  // The messages as read (a body's refiled by readOutcomes, made for this request): passed beside `r`, not spread into a copy of it.
  messages: LeanMessage[],
): void {
  if (role.kind === 'option') {
    const key = role.key as string;
    const from =
      opts.printing && key in opts.printing
        ? 'verbosity/delab_options'
        : opts.mathlib_options && key in MATHLIB_OPTIONS
          ? 'mathlib_options'
          : 'global_options';
    for (const m of messages) if (m.severity === 'error') out.toolErrors.push(`${from}.${key}: ${m.text}`);
  } else if (role.kind === 'body') {
    readBody(r, role.pieces, out, messages);
  } else if (role.kind === 'lint') {
    // Batteries' `#lint` reports findings with `logError` and a pass with an info ending
    // "All linting checks passed!" [batteries v4.28.0: Batteries/Tactic/Lint/Frontend.lean, `elab "#lint"`]:
    // findings are style warnings about the content, never errors; a pass says nothing.
    for (const m of messages) if (m.severity === 'error') out.messages.push({ ...m, severity: 'warning' });
  } else if (role.kind === 'scopes') {
    // Our model of the scopes disagreed with Lean's: the probes after it ran in the wrong scope.
    for (const m of messages)
      if (m.severity === 'error') out.toolErrors.push(`leaving the scopes the content leaves open: ${m.text}`);
  } else if (role.kind === 'probe') {
    out.probes = ownMap(out.probes).set(role.key, messages);
  } else if (role.kind === 'preamble') {
    out.preamble[role.index] = messages;
  } else {
    readAxiomsBatch(messages, role.key as Asked, role.line, out);
  }
}

/** The answers to a batch of `#print axioms` questions, the k-th on line `first + k`: each read with the messages of its line. */
function readAxiomsBatch(messages: readonly LeanMessage[], asked: Asked, first: number, out: Elaborated): void {
  if (asked.length === 1) return readAxioms(messages, asked[0]!.fullName, out);
  const byLine = questionLines(messages, asked.length, first);
  asked.forEach((d, k) => readAxioms(byLine[k]!, d.fullName, out));
}

/**
 * A content unit's answer. A unit of several commands (`mutual … end`, `… in <cmd>`): each message
 * and sorry goes to the piece whose lines hold it; a unit of one command (most) has them all.
 */
function readBody(
  r: ElabResult['commands'][number],
  pieces: readonly Piece[],
  out: Elaborated,
  messages: LeanMessage[],
) {
  const sorries = r.sorries.length === 0 ? [] : r.sorries.map(shiftedSorry);
  if (pieces.length === 1) {
    const p = pieces[0]!;
    out.commands.push({ command: p.cmd, messages: p.silent ? [] : messages, sorries: p.silent ? [] : sorries });
    if (!p.silent) {
      for (const m of messages) out.messages.push(m);
      for (const x of r.tactics ?? NONE) out.tactics.push(x);
    }
    return;
  }
  for (const p of pieces) {
    out.commands.push({
      command: p.cmd,
      messages: p.silent ? [] : messages.filter((m) => pieceOf(pieces, m.pos.line) === p),
      sorries: p.silent ? [] : sorries.filter((x) => pieceOf(pieces, x.pos?.line) === p),
    });
  }
  for (const m of messages) if (!pieceOf(pieces, m.pos.line).silent) out.messages.push(m);
  for (const x of r.tactics ?? NONE) if (!pieceOf(pieces, x.pos.line).silent) out.tactics.push(x);
}

/** A sorry on content positions. */
function shiftedSorry(x: ElabResult['commands'][number]['sorries'][number]): CommandOutcome['sorries'][number] {
  return {
    pos: x.pos ? shiftPos(x.pos, x.origin) : undefined,
    endPos: x.endPos ? shiftPos(x.endPos, x.origin) : undefined,
    goal: x.goal,
  };
}

/**
 * The piece of a unit whose lines hold `line` (the first one when none does). A module function,
 * not a closure in readOutcome: the build keeps function names (esbuild `keepNames`), and each
 * named closure made costs a defineProperty (and it made readOutcome deoptimise).
 */
function pieceOf(pieces: readonly Piece[], line: number | undefined): Piece {
  if (line !== undefined) for (const p of pieces) if (line >= p.fromLine && line <= p.toLine) return p;
  return pieces[0]!;
}

/**
 * The answer to `#print axioms` of `name`: its axioms, or why there is none. No answer is never
 * read as "no axioms": a `module` header refuses the command [lean4
 * src/Lean/Elab/Print.lean, `elabPrintAxioms`: "cannot use `#print axioms` in a `module`"], and an
 * answer about another name is not one about this declaration.
 */
function readAxioms(messages: readonly LeanMessage[], name: string, out: Elaborated): void {
  for (const m of messages) {
    const parsed = m.severity === 'info' ? parseAxioms(m.text) : undefined;
    // Compared as names, not texts: `theorem «foo»` is printed `'foo' depends on …`.
    if (parsed && nameIdentity(parsed.name) === nameIdentity(userConstName(name))) {
      out.axioms = ownMap(out.axioms).set(name, parsed.axioms);
      return;
    }
  }
  const error = messages.find((m) => m.severity === 'error');
  const why = error ? `Lean refused #print axioms: ${error.text.slice(0, 300)}` : 'no answer';
  out.axiomsUnanswered = ownMap(out.axiomsUnanswered).set(name, why);
}
