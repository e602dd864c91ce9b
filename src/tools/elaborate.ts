/**
 * The one way tools elaborate content: substitute or keep the header, plan the commands
 * (elaboration-plan.ts: the body split into commands with the source model, options, questions),
 * run them on the backend, and read the answers back on positions in the content the response
 * returns (elaboration-answers.ts). A declaration's verdict from the result: decl-verdict.ts.
 */
import { LeanFailure, canonicalHeader, type ElabResult, type LeanMessage, type TacticStep } from '../backend/index.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { serviceError } from '../errors.ts';
import type { Command } from '../syntax/commands.ts';
import { headerEnd as findHeaderEnd } from '../syntax/header-end.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { emptyElaborated, readOutcomes } from './elaboration-answers.ts';
import { bodyProgress, planCommands } from './elaboration-plan.ts';
import type { ToolContext } from './types.ts';

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
  const read = extras.read ?? readContent(text, ctx.env, opts.ignore_imports);
  const parseMs = performance.now() - t0;
  const first = await elaborateOnce(read, parseMs, opts, ctx, extras, true);
  if (first.clean) return first.out;
  // The last unit took the axiom questions chained to it into its own parse (elaboration-answers.ts,
  // `chainedAnswersClean`): elaborated again with the questions in an input of their own, as Lean sees the
  // unit alone. The units before it are the same inputs: the session answers them from memory.
  const again = (await elaborateOnce(read, parseMs, opts, ctx, extras, false)).out;
  again.elaborateMs += first.out.elaborateMs;
  again.reused += first.out.reused;
  again.sent += first.out.sent;
  return again;
}

/** One elaboration of the content; `chain`: the axiom questions on the lines after the last unit when it can take them. */
async function elaborateOnce<K>(
  { prepared, file }: ReadContent,
  parseMs: number,
  opts: ElabOptions,
  ctx: ToolContext,
  extras: ElaborateExtras<K>,
  chain: boolean,
): Promise<{ out: Elaborated<K>; clean: boolean }> {
  const { roles, commands } = planCommands(file, prepared, opts, extras, chain);

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
    return { out, clean: true };
  }
  out.elaborateMs = performance.now() - t1;
  out.reused = result.reused;
  out.sent = result.sent;
  for (const m of result.headerMessages) out.messages.push(m);
  const clean = readOutcomes(result, roles, commands, opts, ctx, out);
  return { out, clean };
}

/** The REPL faults that are a resource cap (repl-process.ts: the memory and process watchdog). */
const RESOURCE_FAULTS: ReadonlySet<string> = new Set(['memory', 'processes']);
