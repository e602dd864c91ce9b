/**
 * The one way tools elaborate content: substitute or keep the header, split the body
 * into commands with the source model, add option commands, run them on the backend,
 * and bring every message back to positions in the content the response returns.
 */
import {
  LeanFailure,
  canonicalHeader,
  shiftPos,
  type ElabCommand,
  type ElabResult,
  type LeanMessage,
  type Origin,
  type TacticStep,
} from '../backend/index.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { serviceError } from '../errors.ts';
import type { Command } from '../syntax/commands.ts';
import { headerEnd as findHeaderEnd } from '../syntax/header-end.ts';
import { nameIdentity, parseSource, printedName, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { leaveOpenScopes } from '../syntax/statements.ts';
import { GOAL_PRINTING_OPTIONS, parseAxioms, printAxiomsCommand, userConstName } from './lean-texts.ts';
import type { ToolContext } from './types.ts';
import { refileVariableWarning, type SentUnit } from './variable-warnings.ts';
import { NONE } from '../util/arrays.ts';

export interface ElabOptions {
  ignore_imports: boolean;
  mathlib_options?: boolean;
  global_options?: Record<string, boolean | number | string> | undefined;
  /** Goals are read back as lemma statements: print them so that they elaborate again (GOAL_PRINTING_OPTIONS). */
  goalPrinting?: boolean;
  /** Pretty-printer options from `verbosity`/`delab_options` (printing.ts), set after the others. */
  printing?: Record<string, boolean | number | string> | undefined;
}

/** The options a request states for itself (repair_proofs, simplify_theorems: no printing options of their own). */
export const requestElabOptions = (
  req: Pick<ElabOptions, 'ignore_imports' | 'mathlib_options' | 'global_options'>,
) => ({
  ignore_imports: req.ignore_imports,
  mathlib_options: req.mathlib_options,
  global_options: req.global_options,
});

export interface PreparedContent {
  /** The content the response returns (header substituted when ignore_imports). */
  content: string;
  /** The header text elaborated first. */
  header: string;
  warnings: string[];
}

/**
 * `ignore_imports` true: the environment's header replaces the content's (the spec's fast path).
 * Only the header's end is needed: given a parse, its boundary; otherwise a prefix scan
 * (`headerEnd`), so preparing never costs a second parse of the content.
 */
export function prepareContent(
  text: string,
  env: EnvironmentConfig,
  ignoreImports: boolean,
  file?: { header: { end: number } },
): PreparedContent {
  const headerEnd = file?.header.end ?? findHeaderEnd(text);
  if (ignoreImports) {
    if (headerEnd === 0 && !env.imports) return { content: text, header: '', warnings: [] };
    const body = text.slice(blankLinesEnd(text, headerEnd));
    return { content: env.imports ? `${env.imports}\n\n${body}` : body, header: env.imports, warnings: [] };
  }
  const header = text.slice(0, headerEnd);
  const warnings: string[] = [];
  if (canonicalHeader(header) !== canonicalHeader(env.imports)) {
    warnings.push(
      `the imports differ from the environment's header (${env.imports || 'no imports'}); they were processed as written (ignore_imports is false), ` +
        'which is much slower and can give inconsistent results if a required dependency such as Mathlib.Tactic is missing',
    );
  }
  return { content: text, header, warnings };
}

/**
 * Where the blank lines (spaces and tabs only) starting at `from` end: after the last newline of
 * that run, `from` when there is none (what `/^(?:[ \t]*\n)+/` matches, without a regex per request).
 */
export function blankLinesEnd(text: string, from: number): number {
  let end = from;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) end = i + 1;
    else if (c !== 32 && c !== 9) break;
  }
  return end;
}

/** `set_option` text for one option; string values use Lean string escapes. */
export function setOptionCommand(key: string, value: boolean | number | string): string {
  const v =
    typeof value === 'string'
      ? `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`
      : String(value);
  return `set_option ${key} ${v}`;
}

export const MATHLIB_OPTIONS: Record<string, boolean> = {
  'linter.mathlibStandardSet': true,
  autoImplicit: false,
  relaxedAutoImplicit: false,
  'pp.unicode.fun': true,
};

/** The tool error reporting a Lean failure (the typed signal for the caller is ToolContext.leanFailed). */
export const LEAN_FAILURE_PREFIX = 'Lean failed while elaborating';

export interface CommandOutcome {
  command: Command;
  messages: LeanMessage[];
  /** The goals at each `sorry` Lean reported, on content positions. */
  sorries: {
    pos: { line: number; column: number } | undefined;
    endPos?: { line: number; column: number } | undefined;
    goal: string;
  }[];
}

/**
 * A question asked of Lean after the content. Its answer comes back under its `key` (the
 * declaration, attempt or pair it is about), so a reader looks up what it asked about instead of
 * counting positions.
 */
export interface Probe<K> {
  key: K;
  text: string;
}

export interface Elaborated<K = unknown> {
  content: string;
  file: SourceFile;
  /** Every Lean message about the content, on content positions. */
  messages: LeanMessage[];
  /** The content's tactic steps on content positions, in order (ElaborateExtras.tactics). */
  tactics: TacticStep[];
  commands: CommandOutcome[];
  /** `fullName → axioms` for the declarations asked about (absent: the name did not elaborate). */
  axioms: ReadonlyMap<string, string[]>;
  /** `fullName →` why Lean gave no axioms answer, for each declaration asked about that got none (fail closed). */
  axiomsUnanswered: ReadonlyMap<string, string>;
  /** Messages of each probe, under its key (absent: the probe was not run, e.g. Lean failed first). */
  probes: ReadonlyMap<K, LeanMessage[]>;
  /** Messages of each preamble command, in order. */
  preamble: LeanMessage[][];
  toolErrors: string[];
  toolWarnings: string[];
  failure: LeanFailure | undefined;
  parseMs: number;
  elaborateMs: number;
  reused: number;
  sent: number;
}

export interface ElaborateExtras<K = unknown> {
  /** Ask Lean which axioms these declarations (of the elaborated file) depend on (`#print axioms`). */
  axiomsOf?: (file: SourceFile) => readonly SourceDecl[];
  /** Extra commands run after the content (and after any axiom probes); their messages come back in `probes`, never in `messages`. */
  probes?: (file: SourceFile) => readonly Probe<K>[];
  /** Replace a command's text for elaboration (same origin), e.g. an unselected proof by `sorry`; `silent` drops its messages. */
  transform?: (
    cmd: Command,
    text: string,
    decl: SourceDecl | undefined,
  ) => { text: string; silent: boolean } | undefined;
  /** Adjust the header elaborated first (e.g. extract_decls adds `import Lean` for its helper when there is none). */
  header?: (header: string) => string;
  /** Ask Lean for the content's tactic steps (goals before and after each tactic): they come back in `tactics`. */
  tactics?: boolean;
  /**
   * Commands run right after the header, before options and content (a helper metaprogram): first in the chain,
   * so a session elaborates them once; their messages come back in `preamble`, never in `messages`.
   */
  preamble?: readonly string[];
  /** `readContent` of the same text, environment and `ignore_imports`, when the caller already read it: not parsed again. */
  read?: ReadContent;
}

/** A content command inside one REPL input, with the lines it covers there. */
type Piece = { cmd: Command; silent: boolean; fromLine: number; toLine: number };

/**
 * What each command sent to Lean is for, so its messages go to the right place. One shape for
 * every kind (each made by `role`, all properties in one order): readOutcome reads them all, and
 * one literal per kind made it polymorphic (V8 deoptimised it with "wrong map").
 */
interface Role {
  kind: 'option' | 'body' | 'lint' | 'axioms' | 'scopes' | 'probe' | 'preamble';
  /** The option's name (`option`), the probe's key (`probe`), or the declarations asked about, one a line (`axioms`). */
  key: unknown;
  /** Unused by the kinds above (kept for one shape). */
  name: string;
  /** The preamble command's index (`preamble`); the content command's among them (`body`, for progress); the line of the first question (`axioms`). */
  index: number;
  /** The content's commands in this input (`body`). */
  pieces: readonly Piece[];
}

function role(kind: Role['kind'], key: unknown, name: string, index: number, pieces: readonly Piece[]): Role {
  return { kind, key, name, index, pieces };
}

type Prepared = ReturnType<typeof prepareContent>;

/** Content as Lean gets it, with its one parse (a caller that reads the source for rules of its own passes it on). */
export interface ReadContent {
  prepared: PreparedContent;
  file: SourceFile;
}

/**
 * One parse per request, of what Lean gets: the text itself when its imports are kept (the header
 * boundary is then the parse's); otherwise the header's end first (`headerEnd`: its first tokens).
 */
export function readContent(text: string, env: EnvironmentConfig, ignoreImports: boolean): ReadContent {
  const own = ignoreImports ? undefined : parseSource(text);
  const prepared = prepareContent(text, env, ignoreImports, own);
  return { prepared, file: own ?? parseSource(prepared.content) };
}

export async function elaborateContent<K = unknown>(
  text: string,
  opts: ElabOptions,
  ctx: ToolContext,
  extras: ElaborateExtras<K> = {},
): Promise<Elaborated<K>> {
  const t0 = performance.now();
  const { prepared, file } = extras.read ?? readContent(text, ctx.env, opts.ignore_imports);
  const parseMs = performance.now() - t0;
  const { roles, commands } = planCommands(file, prepared, opts, extras);

  const out = emptyElaborated<K>(prepared, file, parseMs);
  const t1 = performance.now();
  let result: ElabResult;
  try {
    result = await ctx.lean.elaborate(
      ctx.env,
      { header: extras.header?.(prepared.header) ?? prepared.header, commands },
      {
        signal: ctx.signal,
        progress: bodyProgress(roles, ctx),
      },
    );
  } catch (e) {
    if (!(e instanceof LeanFailure)) throw e;
    // A cap Lean ran into on this input is AXLE's LeanResourceExceeded: the whole request's outcome, as on AXLE
    // (CHANGELOG v1.5.0), not a finding inside a result; other faults (a crash) stay the tool's to report.
    if (RESOURCE_FAULTS.has(e.fault)) throw serviceError('lean_resource_exceeded', 'fault', { reason: e.message });
    out.failure = e;
    ctx.leanFailed?.(e);
    out.toolErrors.push(`${LEAN_FAILURE_PREFIX} (${e.fault}): ${e.message}`);
    out.elaborateMs = performance.now() - t1;
    return out;
  }
  out.elaborateMs = performance.now() - t1;
  out.reused = result.reused;
  out.sent = result.sent;
  for (const m of result.headerMessages) out.messages.push(m);
  readOutcomes(result, roles, commands, opts, ctx, out);
  return out;
}

/** The REPL faults that are a resource cap (repl-process.ts: the memory and process watchdog). */
const RESOURCE_FAULTS: ReadonlySet<string> = new Set(['memory', 'processes']);

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
function emptyElaborated<K>(prepared: Prepared, file: SourceFile, parseMs: number): Elaborated<K> {
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

/** Each command's outcome read by its role; the content's own messages refiled where Lean sent them late. */
function readOutcomes<K>(
  result: ElabResult,
  roles: Role[],
  commands: readonly ElabCommand[],
  opts: ElabOptions,
  ctx: ToolContext,
  out: Elaborated<K>,
): void {
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
}

const isVariablePiece = (p: Piece) => p.cmd.kind === 'variable';

/** Progress counts the content's commands only, not options, probes or axiom questions. */
function bodyProgress(roles: Role[], ctx: ToolContext): (done: number) => void {
  let total = 0;
  for (const r of roles) if (r.kind === 'body') total++;
  return (done) => {
    const r = roles[done - 1];
    if (r?.kind === 'body') ctx.progress({ stage: 'elaborate', done: r.index + 1, total });
  };
}

/**
 * The commands sent to Lean, in order: preamble, options, the content (one input per unit), `#lint`, axiom questions,
 * one `end` per scope the content leaves open (when there are probes), probes.
 */
function planCommands(
  file: SourceFile,
  prepared: Prepared,
  opts: ElabOptions,
  extras: ElaborateExtras,
): { roles: Role[]; commands: ElabCommand[] } {
  const roles: Role[] = [];
  const commands: ElabCommand[] = [];
  const start = { line: 1, column: 0 };
  const preamble = extras.preamble ?? NONE;
  for (let index = 0; index < preamble.length; index++) {
    roles.push(role('preamble', undefined, '', index, NONE));
    commands.push({ text: preamble[index]!, origin: start });
  }
  if (opts.mathlib_options) planOptions(MATHLIB_OPTIONS, start, roles, commands);
  if (opts.global_options) planOptions(opts.global_options, start, roles, commands);
  if (opts.goalPrinting) planOptions(GOAL_PRINTING_OPTIONS, start, roles, commands);
  if (opts.printing) planOptions(opts.printing, start, roles, commands);
  contentUnits(file, prepared, extras, roles, commands);
  planQuestions(file, prepared, opts, extras, roles, commands);
  return { roles, commands };
}

/** One `set_option` command per option, in the record's order. */
function planOptions(
  options: Record<string, boolean | number | string>,
  origin: Origin,
  roles: Role[],
  commands: ElabCommand[],
): void {
  for (const key of Object.keys(options)) {
    roles.push(role('option', key, '', 0, NONE));
    commands.push({ text: setOptionCommand(key, options[key]!), origin });
  }
}

/** What is asked after the content, at its end: `#lint`, the axiom questions, the probes. */
function planQuestions(
  file: SourceFile,
  prepared: Prepared,
  opts: ElabOptions,
  extras: ElaborateExtras,
  roles: Role[],
  commands: ElabCommand[],
): void {
  // The content's end, found only when something is asked there.
  let end: Origin | undefined;
  // `#lint` comes with Batteries (and so Mathlib); without them the command does not exist.
  if (opts.mathlib_options && /\bimport\s+(Mathlib|Batteries)\b/.test(prepared.header)) {
    roles.push(role('lint', undefined, '', 0, NONE));
    commands.push({ text: '#lint', origin: (end ??= file.lines.toLean(prepared.content.length)) });
  }
  // Every declaration's axioms in one REPL input, a question a line: one command per request instead of
  // one per declaration (each command is a round trip and an environment the REPL keeps). The REPL
  // elaborates an input's commands in turn and reports each message at its own line [repl v4.28.0:
  // REPL/Frontend.lean, `processInput` runs `IO.processCommands` over the whole input], so each
  // answer is read back by its line (`readAxiomsBatch`).
  const asked: string[] = [];
  for (const d of extras.axiomsOf?.(file) ?? NONE) if (d.fullName) asked.push(d.fullName);
  if (asked.length) {
    end ??= file.lines.toLean(prepared.content.length);
    roles.push(role('axioms', asked, '', end.line, NONE));
    commands.push({ text: asked.map(printAxiomsCommand).join('\n'), origin: end });
  }
  const probes = extras.probes?.(file) ?? NONE;
  // The probes state their own scope (a namespace, a section): they run at the top level, not nested in the
  // scopes the content leaves open (a theorem of A probed inside B would be B.A.<probe>).
  for (const leave of probes.length > 0 ? leaveOpenScopes(file) : NONE) {
    roles.push(role('scopes', undefined, '', 0, NONE));
    commands.push({ text: leave, origin: (end ??= file.lines.toLean(prepared.content.length)) });
  }
  for (const { key, text } of probes) {
    roles.push(role('probe', key, '', 0, NONE));
    commands.push({ text, origin: (end ??= file.lines.toLean(prepared.content.length)) });
  }
}

/** The content, one REPL input per elaboration unit, appended to `commands` with its role. */
function contentUnits(
  file: SourceFile,
  prepared: Prepared,
  extras: ElaborateExtras,
  roles: Role[],
  commands: ElabCommand[],
): void {
  // Only a transform is given the declaration of each command.
  const declOf = extras.transform ? new Map(file.decls.map((d) => [d.command, d])) : undefined;
  let body = 0;
  // The units as `elaborationUnits` groups them, read in place (no list of lists per request).
  for (let from = 0; from < file.commands.length;) {
    const to = unitEnd(file, from);
    // One REPL input per unit; its pieces keep the text between them, so positions stay the content's.
    const { text, pieces, stop } = unitInput(file, prepared.content, from, to, extras, declOf);
    roles.push(role('body', undefined, '', body++, pieces));
    const origin = file.lines.toLean(file.commands[from]!.start);
    commands.push(extras.tactics ? { text, origin, infotree: true } : { text, origin });
    if (stop) break;
    from = to;
  }
}

/** The REPL input of the unit of commands [from, to): their texts (as transformed) with the text between them, and its pieces. */
function unitInput(
  file: SourceFile,
  content: string,
  from: number,
  to: number,
  extras: ElaborateExtras,
  declOf: Map<Command, SourceDecl> | undefined,
): { text: string; pieces: Piece[]; stop: boolean } {
  let text = '';
  let stop = false;
  let pieces: Piece[] | undefined;
  for (let i = from; i < to; i++) {
    const cmd = file.commands[i]!;
    if (i > from) text += content.slice(file.commands[i - 1]!.end, cmd.start);
    const raw = content.slice(cmd.start, cmd.end);
    const t = extras.transform?.(cmd, raw, declOf!.get(cmd));
    text += t?.text ?? raw;
    // Lean lines are 1-based (LineIndex.toLean), without a position object per end.
    const fromLine = file.lines.lineOf(cmd.start) + 1;
    const piece = { cmd, silent: t?.silent ?? false, fromLine, toLine: file.lines.lineOf(cmd.end) + 1 };
    // A list of one made as such: an empty list's first push reserves room for 17.
    if (pieces) pieces.push(piece);
    else pieces = [piece];
    // Lean stops at a late `import` or at `#exit`; so do we.
    if (cmd.kind === 'import' || cmd.keyword === '#exit') stop = true;
  }
  return { text, pieces: pieces!, stop };
}

/** One command's answer, put where its role says: tool errors, the content's commands and messages, axioms, probes or preamble. */
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
    readAxiomsBatch(messages, role.key as readonly string[], role.index, out);
  }
}

/** The answers to a batch of `#print axioms` questions, the k-th on line `first + k`: each read with the messages of its line. */
function readAxiomsBatch(
  messages: readonly LeanMessage[],
  names: readonly string[],
  first: number,
  out: Elaborated,
): void {
  if (names.length === 1) return readAxioms(messages, names[0]!, out);
  const byLine: LeanMessage[][] = names.map(() => []);
  for (const m of messages) byLine[m.pos.line - first]?.push(m);
  names.forEach((name, k) => readAxioms(byLine[k]!, name, out));
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

/**
 * The commands that must reach Lean as one input. Lean's parser reads `mutual` up to its
 * `end` as one command [lean4 v4.28.0: src/Lean/Parser/Command.lean, `def «mutual» := leading_parser
 * "mutual" >> many1 (…) >> "end"`], and `<cmd> in <cmd>` (`attribute [simp] x in theorem …`,
 * `open Foo in`, `set_option … in`) as one command [lean4 v4.28.0:
 * src/Lean/Parser/Command.lean, `in` trailing parser]; sent in pieces, `mutual` alone is a parse
 * error and `end` closes no scope. The source model keeps each declaration a command of its own (tools select and edit
 * them one by one); this groups them again for elaboration.
 */
export function elaborationUnits(file: SourceFile): Command[][] {
  const units: Command[][] = [];
  for (let from = 0; from < file.commands.length;) {
    const to = unitEnd(file, from);
    units.push(file.commands.slice(from, to));
    from = to;
  }
  return units;
}

/** The end (exclusive) of the elaboration unit whose first command is `file.commands[from]` (`elaborationUnits`). */
export function unitEnd(file: SourceFile, from: number): number {
  const cmds = file.commands;
  let inMutual = false;
  for (let i = from; i < cmds.length; i++) {
    const c = cmds[i]!;
    if (inMutual) {
      if (c.kind !== 'end') continue;
      inMutual = false;
    } else if (c.kind === 'mutual') {
      inMutual = true;
      continue;
    }
    // A command ending in `in` is a prefix of the next one (those not already glued by the splitter).
    if (file.sig.text[c.sigEnd - 1] === 'in') continue;
    return i + 1;
  }
  return cmds.length;
}

/** The standard axioms a valid proof may use. */
export const STANDARD_AXIOMS = new Set(['propext', 'Classical.choice', 'Quot.sound']);

/**
 * Lean's sorry warning in each recorded spelling: `declaration uses 'sorry'` (REPL transcripts
 * v4.21.0 … v4.27.0), ``declaration uses `sorry` `` (v4.28.0 … v4.33.0-rc2), and the form naming the
 * declaration, ``declaration `g` uses `sorry` `` (Lean's own test tests/lean/run/10196.lean at lean4
 * 7608ad0; ../shared/recorded, test/recorded/parsers.test.ts).
 */
export const isSorryWarning = (m: LeanMessage) =>
  m.severity === 'warning' && /^declaration (?:`[^`]+` )?uses ['`]sorry['`]/.test(m.text);

/** The same declaration in another elaboration of the content (after an edit). */
export function sameDecl(r: Pick<Elaborated, 'file'>, d: SourceDecl): SourceDecl | undefined {
  return declsByName(r.file)
    .get(nameKey(d))
    ?.find((x) => x.fullName !== undefined || x.command.start === d.command.start);
}

/** What `sameDecl` matches on: the keyword and the name (full where known). */
const nameKey = (d: SourceDecl) => `${d.keyword}\u0000${d.fullName ?? d.name}`;

/** A file's declarations by keyword and name, in file order: `sameDecl` per declaration stays linear overall. */
const byNameOf = new WeakMap<SourceFile, Map<string, SourceDecl[]>>();
function declsByName(file: SourceFile): Map<string, SourceDecl[]> {
  let m = byNameOf.get(file);
  if (!m) {
    m = new Map();
    for (const x of file.decls) {
      const list = m.get(nameKey(x));
      if (list) list.push(x);
      else m.set(nameKey(x), [x]);
    }
    byNameOf.set(file, m);
  }
  return m;
}

/** Message indices ordered by line (stable), built once per message list: `messagesIn` per declaration stays near-linear. */
const lineOrderOf = new WeakMap<readonly LeanMessage[], { length: number; order: number[] }>();
function lineOrder(messages: readonly LeanMessage[]): number[] {
  const known = lineOrderOf.get(messages);
  // A list that grew since (messages are appended while an elaboration is read) is indexed again.
  if (known && known.length === messages.length) return known.order;
  const order = messages.map((_, i) => i).sort((a, b) => messages[a]!.pos.line - messages[b]!.pos.line || a - b);
  lineOrderOf.set(messages, { length: messages.length, order });
  return order;
}

/** Lean's messages inside a declaration's lines that satisfy `keep`. */
export function messagesIn(
  r: Pick<Elaborated, 'file' | 'messages'>,
  d: SourceDecl,
  keep: (m: LeanMessage) => boolean,
): LeanMessage[] {
  const { messages } = r;
  // No message (a miss that compiles): no index of them to build.
  if (messages.length === 0) return [];
  // Lean lines are 1-based (LineIndex.toLean), without a position object per end.
  const from = r.file.lines.lineOf(d.command.start) + 1;
  const to = r.file.lines.lineOf(d.command.end) + 1;
  const order = lineOrder(messages);
  // The first message on line `from` or later, by binary search; then those up to line `to`, in list order.
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (messages[order[mid]!]!.pos.line < from) lo = mid + 1;
    else hi = mid;
  }
  const hits: number[] = [];
  for (let k = lo; k < order.length && messages[order[k]!]!.pos.line <= to; k++) hits.push(order[k]!);
  if (hits.length > 1) hits.sort(byNumber);
  const out: LeanMessage[] = [];
  for (const i of hits) if (keep(messages[i]!)) out.push(messages[i]!);
  return out;
}

const byNumber = (a: number, b: number) => a - b;
const everyMessage = () => true;

/** What Lean said about one declaration of the elaborated file. */
export interface DeclVerdict {
  hasErrors: boolean;
  /** A sorry warning inside it, or `sorryAx` among its axioms. */
  usesSorry: boolean;
  /** Axioms beyond the standard ones (and beyond `sorryAx`). */
  foreignAxioms: string[];
  /** Asked about, compiled without errors, and yet no `#print axioms` answer: why (a failure, never a pass). */
  axiomsUnanswered: string | undefined;
}

export function declVerdict(
  r: Pick<Elaborated, 'file' | 'messages' | 'axioms'> & Partial<Pick<Elaborated, 'axiomsUnanswered'>>,
  d: SourceDecl,
): DeclVerdict {
  const inside = messagesIn(r, d, everyMessage);
  const axioms: readonly string[] = (d.fullName ? r.axioms.get(d.fullName) : undefined) ?? NONE;
  const hasErrors = inside.some(isError);
  const unanswered = d.fullName ? r.axiomsUnanswered?.get(d.fullName) : undefined;
  return {
    axiomsUnanswered: hasErrors ? undefined : unanswered,
    hasErrors,
    // Lean adds a declaration with errors with `sorryAx` in place of what failed [lean4: the
    // elaborator's error recovery, `exceptionToSorry`]: that sorry is the error's, not the author's.
    usesSorry: !hasErrors && (inside.some(isSorryWarning) || axioms.includes('sorryAx')),
    foreignAxioms: axioms.filter(isForeignAxiom),
  };
}

const isError = (m: LeanMessage) => m.severity === 'error';
const isForeignAxiom = (a: string) => a !== 'sorryAx' && !STANDARD_AXIOMS.has(a);

/** How a declaration's type is asked for: full names (the `open`s in force must not change the text) and `→`/`fun` as Mathlib prints them. */
export const CHECK_PRINTING = ['set_option pp.fullNames true in', 'set_option pp.unicode.fun true in'];
export const printedCheck = (name: string) => [...CHECK_PRINTING, `#check @${name}`].join('\n');

/** Whitespace-insensitive form of Lean text, for comparing statements and values as written. */
export const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The type in a `#check @name` output (its first info message), whitespace squashed; undefined without one.
 * Lean prints `@name : …` for a constant with implicit or instance arguments and `name : …` otherwise
 * (recorded: ../shared/recorded/batteries/<tag>/…, `info: @vec_of_some : {d_some_nat : some_nat.Val} → …` beside
 * `info: prime_dec : …`), so the `@` is dropped with the name: the type alone compares across names
 * (merge's rule 5).
 */
export function checkedType(messages: readonly LeanMessage[] | undefined, name: string): string | undefined {
  const text = messages?.find((m) => m.severity === 'info')?.text;
  if (text === undefined) return undefined;
  // Lean prints the name without unneeded guillemets (`theorem «foo»` is `foo : …`).
  const bare = withoutName(text, name) ?? withoutName(text, printedName(name)) ?? text;
  return squash(bare).replace(/^:\s*/, '');
}

/** `text` after a leading `@name` or `name`; undefined when it starts with neither. */
function withoutName(text: string, name: string): string | undefined {
  if (text.startsWith(`@${name}`)) return text.slice(name.length + 1);
  return text.startsWith(name) ? text.slice(name.length) : undefined;
}
