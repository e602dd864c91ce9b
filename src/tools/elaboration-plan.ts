/**
 * What an elaboration sends to Lean: the commands, in order, and what each is for (its role), so that
 * elaboration-answers.ts can put each answer where it belongs. Preamble, options, the content (one
 * REPL input per elaboration unit), `#lint`, the axiom questions, the scopes left, the probes.
 */
import { canonicalHeader, type ElabCommand, type Origin } from '../backend/index.ts';
import type { Command } from '../syntax/commands.ts';
import type { SourceDecl, SourceFile } from '../syntax/source.ts';
import { leaveOpenScopes } from '../syntax/statements.ts';
import { NONE } from '../util/arrays.ts';
import type { ElabOptions, ElaborateExtras, PreparedContent } from './elaborate.ts';
import { GOAL_PRINTING_OPTIONS, printAxiomsCommand } from './lean-texts.ts';
import type { ToolContext } from './types.ts';

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

/** A content command inside one REPL input, with the lines it covers there. */
export type Piece = { cmd: Command; silent: boolean; fromLine: number; toLine: number };

/**
 * What each command sent to Lean is for, so its messages go to the right place. One shape for
 * every kind (each made by `role`, all properties in one order): readOutcome reads them all, and
 * one literal per kind made it polymorphic (V8 deoptimised it with "wrong map").
 */
export interface Role {
  kind: 'option' | 'body' | 'lint' | 'axioms' | 'scopes' | 'probe' | 'preamble';
  /**
   * The option's name (`option`), the probe's key (`probe`), or the declarations whose axioms are asked, one a line
   * (`axioms`, and the `body` they are chained to).
   */
  key: unknown;
  /** The content line the first axiom question is moved to (`axioms`, and a `body` with the questions chained). */
  line: number;
  /** The preamble command's index (`preamble`); the content command's among them (`body`, for progress). */
  index: number;
  /** The content's commands in this input (`body`). */
  pieces: readonly Piece[];
}

function role(kind: Role['kind'], key: unknown, line: number, index: number, pieces: readonly Piece[]): Role {
  return { kind, key, line, index, pieces };
}

/** Progress counts the content's commands only, not options, probes or axiom questions. */
export function bodyProgress(roles: Role[], ctx: ToolContext): (done: number) => void {
  let total = 0;
  for (const r of roles) if (r.kind === 'body') total++;
  return (done) => {
    const r = roles[done - 1];
    if (r?.kind === 'body') ctx.progress({ stage: 'elaborate', done: r.index + 1, total });
  };
}

/**
 * The commands sent to Lean, in order: preamble, options, the content (one input per unit), `#lint`, axiom questions
 * (with `chain`, in the last unit's input when it can take them: `chainable`), one `end` per scope the content
 * leaves open (when there are probes), probes.
 */
export function planCommands(
  file: SourceFile,
  prepared: PreparedContent,
  opts: ElabOptions,
  extras: ElaborateExtras,
  chain: boolean,
): { roles: Role[]; commands: ElabCommand[] } {
  const roles: Role[] = [];
  const commands: ElabCommand[] = [];
  const start = { line: 1, column: 0 };
  const preamble = extras.preamble ?? NONE;
  for (let index = 0; index < preamble.length; index++) {
    roles.push(role('preamble', undefined, 0, index, NONE));
    commands.push({ text: preamble[index]!, origin: start });
  }
  if (opts.mathlib_options) planOptions(MATHLIB_OPTIONS, start, roles, commands);
  if (opts.global_options) planOptions(opts.global_options, start, roles, commands);
  if (opts.goalPrinting) planOptions(GOAL_PRINTING_OPTIONS, start, roles, commands);
  if (opts.printing) planOptions(opts.printing, start, roles, commands);
  const last = contentUnits(file, prepared, extras, roles, commands);
  const chainTo = chain && last >= 0 && !isModule(prepared.header) ? last : -1;
  planQuestions(file, prepared, opts, extras, { roles, commands, chainTo });
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
    roles.push(role('option', key, 0, 0, NONE));
    commands.push({ text: setOptionCommand(key, options[key]!), origin });
  }
}

/**
 * What is asked after the content, at its end: `#lint`, the axiom questions (on the lines after the unit at
 * `plan.chainTo` when there is one), the probes.
 */
function planQuestions(
  file: SourceFile,
  prepared: PreparedContent,
  opts: ElabOptions,
  extras: ElaborateExtras,
  plan: { roles: Role[]; commands: ElabCommand[]; chainTo: number },
): void {
  const { roles, commands } = plan;
  // The content's end, found only when something is asked there.
  let end: Origin | undefined;
  // `#lint` comes with Batteries (and so Mathlib); without them the command does not exist.
  if (opts.mathlib_options && /\bimport\s+(Mathlib|Batteries)\b/.test(prepared.header)) {
    roles.push(role('lint', undefined, 0, 0, NONE));
    commands.push({ text: '#lint', origin: (end ??= file.lines.toLean(prepared.content.length)) });
  }
  // Every declaration's axioms in one REPL input, a question a line, chained to the last unit's input when it
  // can take them: no command of their own (each command is a round trip and an environment the REPL keeps). The
  // REPL elaborates an input's commands in turn and reports each message at its own line [repl v4.28.0:
  // REPL/Frontend.lean, `processInput` runs `IO.processCommands` over the whole input], so each answer is read
  // back by its line (`readAxiomsBatch`); `#print axioms` adds nothing to the environment [lean4 v4.28.0:
  // src/Lean/Elab/Print.lean, `elabPrintAxioms`: `realizeGlobalConstWithInfos`, then `logInfo`].
  const asked = (extras.axiomsOf?.(file) ?? NONE).filter(hasFullName);
  if (asked.length) {
    end ??= file.lines.toLean(prepared.content.length);
    const text = asked.map((d) => printAxiomsCommand(d.fullName)).join('\n');
    const unit = roles[plan.chainTo];
    if (unit) {
      unit.key = asked;
      unit.line = end.line;
      commands[plan.chainTo]!.tail = { text, origin: end };
    } else {
      roles.push(role('axioms', asked, end.line, 0, NONE));
      commands.push({ text, origin: end });
    }
  }
  const probes = extras.probes?.(file) ?? NONE;
  // The probes state their own scope (a namespace, a section): they run at the top level, not nested in the
  // scopes the content leaves open (a theorem of A probed inside B would be B.A.<probe>).
  for (const leave of probes.length > 0 ? leaveOpenScopes(file) : NONE) {
    roles.push(role('scopes', undefined, 0, 0, NONE));
    commands.push({ text: leave, origin: (end ??= file.lines.toLean(prepared.content.length)) });
  }
  for (const { key, text } of probes) {
    roles.push(role('probe', key, 0, 0, NONE));
    commands.push({ text, origin: (end ??= file.lines.toLean(prepared.content.length)) });
  }
}

const hasFullName = (d: SourceDecl): d is SourceDecl & { fullName: string } => d.fullName !== undefined;

/**
 * A `module` header: Lean refuses `#print axioms` there, and the refusal is read from an input of its own.
 * A line of the canonical header (one statement a line) is `module`, found without splitting it
 * into a list on every request (`split` went through V8's runtime).
 */
export function isModule(header: string): boolean {
  const text = canonicalHeader(header);
  for (let at = text.indexOf('module'); at >= 0; at = text.indexOf('module', at + 1)) {
    const end = at + 'module'.length;
    if ((at === 0 || text.charCodeAt(at - 1) === 10) && (end === text.length || text.charCodeAt(end) === 10))
      return true;
  }
  return false;
}

/**
 * The content, one REPL input per elaboration unit, appended to `commands` with its role. Returns the index of the
 * last unit's command when questions may follow it in the same input (`chainable`), else -1.
 */
function contentUnits(
  file: SourceFile,
  prepared: PreparedContent,
  extras: ElaborateExtras,
  roles: Role[],
  commands: ElabCommand[],
): number {
  // Only a transform is given the declaration of each command.
  const declOf = extras.transform ? new Map(file.decls.map((d) => [d.command, d])) : undefined;
  let body = 0;
  // The units as `elaborationUnits` groups them, read in place (no list of lists per request).
  for (let from = 0; from < file.commands.length;) {
    const to = unitEnd(file, from);
    // One REPL input per unit; its pieces keep the text between them, so positions stay the content's.
    const { text, pieces, stop } = unitInput(file, prepared.content, from, to, extras, declOf);
    roles.push(role('body', undefined, 0, body++, pieces));
    const origin = file.lines.toLean(file.commands[from]!.start);
    commands.push(extras.tactics ? { text, origin, infotree: true } : { text, origin });
    if (stop) return -1;
    if (to === file.commands.length) return chainable(file, from, to) ? commands.length - 1 : -1;
    from = to;
  }
  return -1;
}

/**
 * Whether a unit ends where a command may start: questions on the lines after it then parse as commands of their
 * own. Not so after a unit Lean would stop at (`#exit`, a late `import`: `unitInput`), a trailing `<cmd> in` (it
 * would take the first question as its command), or a `mutual` without its `end` (the questions would be parsed
 * inside it). A unit that ends inside an unfinished term or tactic block takes its questions into its parse
 * error: the answers are then not clean (elaboration-answers.ts, `chainedAnswersClean`) and it is elaborated again.
 */
function chainable(file: SourceFile, from: number, to: number): boolean {
  const last = file.commands[to - 1]!;
  if (file.sig.text[last.sigEnd - 1] === 'in') return false;
  return file.commands[from]!.kind !== 'mutual' || last.kind === 'end';
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
