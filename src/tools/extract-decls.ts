/**
 * extract_decls and extract_theorems: one Document per declaration. Structural fields come
 * from the source model (extract-structure.ts); Lean's fields from the helper
 * lean/ExtractHelper.lean, a command of its own right after the header (first in the
 * chain, so a session elaborates it once and remembers it): each selected declaration is elaborated
 * inside `#lean_tool_measure` (wall time, heartbeats), and `#lean_tool_info` probes after
 * the content report types, hashes, depths, sorry and dependencies.
 */
import type { LeanMessage } from '../backend/index.ts';
import { toMessageSet } from './messages.ts';
import { emptyMessages, type MessageSet } from '../contract/common.ts';
import type { ToolResponse } from '../contract/tools.ts';
import type { Command } from '../syntax/commands.ts';
import { declScope } from '../syntax/dependencies.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { elaborateContent, prepareContent, type Elaborated } from './elaborate.ts';
import { isSorryWarning } from './decl-verdict.ts';
import { elaborationUnits, setOptionCommand } from './elaboration-plan.ts';
import {
  helperSource,
  infoCommand,
  parseInfo,
  parseMeasure,
  wrapCommand,
  type Info,
  type Measure,
} from './extract-lean.ts';
import {
  documentContent,
  documentContentFloor,
  documentKeys,
  fileStructure,
  structuralDocument,
  type FileStructure,
} from './extract-structure.ts';
import { sorryBody } from './output.ts';
import { outputBudget } from './response-bound.ts';
import { selectDeclarations } from './selection.ts';
import type { ToolContext, ToolImpl } from './types.ts';

type Document = ToolResponse<'extract_decls'>['documents'][string];

/** Pretty-printer presets of `verbosity` (only long-standing pp options, so every supported Lean knows them). */
export const VERBOSITY_PP: Record<number, Record<string, boolean>> = {
  0: {},
  1: { 'pp.coercions': false, 'pp.fieldNotation': false, 'pp.funBinderTypes': true },
  2: {
    'pp.coercions': false,
    'pp.fieldNotation': false,
    'pp.funBinderTypes': true,
    'pp.explicit': true,
    'pp.universes': true,
  },
};

export const SELECTION_WARNING =
  'names or indices were given: only the selected declarations are returned, unselected proofs were not elaborated, ' +
  "and each document's content is empty (call without a selection to obtain self-contained content)";
export const NO_PROOFS_WARNING =
  'elaborate_proofs is false: every theorem proof was replaced by sorry before elaboration; ' +
  'for theorems, content, is_sorry, term_depth and the value dependencies must not be used, ' +
  'and the messages, syntactic dependencies, wall_ms and heartbeats are incomplete';

interface ExtractRequest {
  content: string;
  environment: string;
  names?: string[] | undefined;
  indices?: number[] | undefined;
  verbosity?: number;
  delab_options?: Record<string, boolean | number | string> | undefined;
  elaborate_proofs?: boolean;
  mathlib_options: boolean;
  global_options?: Record<string, boolean | number | string> | undefined;
  ignore_imports: boolean;
}

/** Messages of one wrapped command, moved back to the user's positions; the helper's own lines split off. */
function unwrap(
  messages: LeanMessage[],
  originLine: number,
  prefixLines: number,
): { user: LeanMessage[]; helper: LeanMessage[] } {
  const user: LeanMessage[] = [];
  const helper: LeanMessage[] = [];
  for (const m of messages) {
    if (m.pos.line < originLine + prefixLines) {
      helper.push(m);
      continue;
    }
    // In place: the same objects are in the elaboration's full message list.
    m.pos = { line: m.pos.line - prefixLines, column: m.pos.column };
    if (m.endPos) m.endPos = { line: Math.max(originLine, m.endPos.line - prefixLines), column: m.endPos.column };
    user.push(m);
  }
  return { user, helper };
}

/** What the transform reads and fills while the content is sent. */
function transformState(
  file: SourceFile,
  sel: ReturnType<typeof selectDeclarations>,
  elaborateProofs: boolean,
): TransformState {
  const grouped = new Set<number>();
  for (const unit of elaborationUnits(file)) if (unit.length > 1) for (const c of unit) grouped.add(c.start);
  return {
    file,
    byStart: new Map<number, SourceDecl>(file.decls.map((d) => [d.command.start, d])),
    selected: new Set(sel.decls),
    explicit: sel.explicit,
    elaborateProofs,
    grouped,
    sorried: new Set(),
    prefixed: new Map(),
  };
}

/**
 * The helper's question about one declaration. `pp.*` options as `set_option … in` prefixes: they
 * apply to the printing of this probe only. The structural external names are resolved by Lean in
 * the declaration's scope.
 */
function infoProbe(
  pp: Record<string, boolean | number | string>,
  file: SourceFile,
  fs: ReturnType<typeof fileStructure>,
  d: SourceDecl,
): string {
  const options = Object.entries(pp)
    .map(([k, v]) => `${setOptionCommand(k, v)} in\n`)
    .join('');
  return `${options}${infoCommand(d.fullName!, declScope(file, d), fs.deps.get(d)?.external ?? [])}`;
}

/** Whether the helper failed to elaborate; its first error says why (typically `unknown namespace 'Lean'`: the environment lacks the Lean package). */
function helperFailedIn(r: Elaborated, tool: MessageSet): boolean {
  const helperErrors = (r.preamble[0] ?? []).filter((m) => m.severity === 'error');
  if (helperErrors.length === 0) return false;
  tool.errors.push(
    'the extraction helper failed to elaborate in this environment ' +
      `(it needs the Lean package: a header importing Lean, Batteries or Mathlib): ${helperErrors[0]!.text}`,
  );
  return true;
}

interface ExtractionPlan {
  st: TransformState;
  fs: ReturnType<typeof fileStructure>;
  pp: Record<string, boolean | number | string>;
  probed: SourceDecl[];
}

/**
 * Elaborates the content behind the helper, one info probe per declaration after it; a header
 * importing nothing gets `import Lean` (the helper is a metaprogram), said in an info.
 */
async function elaborateWithHelper(
  content: string,
  req: ExtractRequest,
  ctx: ToolContext,
  plan: ExtractionPlan,
  tool: MessageSet,
): Promise<Elaborated<SourceDecl>> {
  let addedImport = false;
  const r = await elaborateContent(content, req, ctx, {
    preamble: [helperSource()],
    header: (h) => {
      if (/\bimport\b/.test(h)) return h;
      addedImport = true;
      return 'import Lean';
    },
    transform: (cmd: Command, text: string) => transformCommand(plan.st, cmd, text),
    probes: () => plan.probed.map((d) => ({ key: d, text: infoProbe(plan.pp, plan.st.file, plan.fs, d) })),
  });
  tool.errors.push(...r.toolErrors);
  tool.warnings.push(...r.toolWarnings.filter((w) => !(addedImport && w.startsWith('the imports differ'))));
  if (addedImport)
    tool.infos.push(
      'the header imports nothing: `import Lean` was added for the extraction helper (it is a metaprogram)',
    );
  return r;
}

export async function runExtract(
  req: ExtractRequest,
  ctx: ToolContext,
  theoremsOnly: boolean,
): Promise<ToolResponse<'extract_decls'>> {
  const t0 = performance.now();
  const tool = emptyMessages();
  // Work on the content the response returns (header substituted), so offsets agree with the elaboration's.
  const prepared = prepareContent(req.content, ctx.env, req.ignore_imports);
  const file = parseSource(prepared.content);
  const fs = fileStructure(file);
  const sel = selectDeclarations(file, { names: req.names, indices: req.indices, theorems_only: theoremsOnly });
  tool.errors.push(...sel.errors);
  const elaborateProofs = req.elaborate_proofs ?? true;
  if (sel.explicit) tool.warnings.push(SELECTION_WARNING);
  // Before Lean runs: documents over the response bound are known from the source model alone.
  else checkStandaloneBound(fs, sel.decls, theoremsOnly, prepared.header, ctx.maxResponseChars);
  if (!elaborateProofs) tool.warnings.push(NO_PROOFS_WARNING);
  const parseMs = performance.now() - t0;

  const pp = { ...VERBOSITY_PP[req.verbosity ?? 0], ...(req.delab_options ?? {}) };
  const st = transformState(file, sel, elaborateProofs);
  // Examples and anonymous instances leave no constant to ask about.
  const probed = sel.decls.filter((d) => d.fullName !== undefined && !(d.kind === 'instance' && d.name === undefined));
  const r = await elaborateWithHelper(prepared.content, req, ctx, { st, fs, pp, probed }, tool);

  const helperFailed = helperFailedIn(r, tool);
  const { measures, declMessages, dropped } = readCommands(r, st, tool);
  const leanMessages = r.messages.filter((m) => !dropped.has(m));
  const infos = readInfos(probed, r, helperFailed, tool);
  const sources: DocumentSources = {
    fs,
    sel,
    theoremsOnly,
    header: prepared.header,
    infos,
    probedSet: new Set(probed),
    helperFailed,
    sorried: st.sorried,
    declMessages,
    measures,
    charge: outputBudget(ctx.maxResponseChars),
  };
  const documents = r.failure ? {} : buildDocuments(sources, tool);
  const timings = {
    parse_ms: Math.round(parseMs + r.parseMs),
    elaborate_ms: Math.round(r.elaborateMs),
    total_ms: Math.round(performance.now() - t0),
  };
  return {
    content: r.content,
    lean_messages: toMessageSet(leanMessages),
    tool_messages: dedupe(tool),
    documents,
    timings,
  };
}

/**
 * Refuses (OutputLimitError, the 413 buildDocuments would raise) before any elaboration when the
 * documents' standalone contents alone are over the response bound: they grow with dependency
 * depth (a chain of n declarations holds n²/2 commands in all), so a long chain was elaborated
 * whole and only then refused. Linear: each document costs its dependency closure, whose text it
 * charges, so the walk stops once it has done about as much work as the bound allows.
 */
function checkStandaloneBound(
  fs: FileStructure,
  decls: readonly SourceDecl[],
  theoremsOnly: boolean,
  header: string,
  limit: number | undefined,
): void {
  if (limit === undefined || limit === Infinity) return;
  const charge = outputBudget(limit);
  for (const d of decls) {
    if (theoremsOnly && d.kind !== 'theorem') continue;
    charge(documentContentFloor(fs, d, header) + d.command.end - d.command.start);
  }
}

interface TransformState {
  file: ReturnType<typeof parseSource>;
  byStart: Map<number, SourceDecl>;
  selected: Set<SourceDecl>;
  explicit: boolean;
  elaborateProofs: boolean;
  grouped: Set<number>;
  /** Filled: the theorems whose proof this tool replaced by sorry. */
  sorried: Set<SourceDecl>;
  /** Filled: commands whose text got lines in front, command start → prefix lines. */
  prefixed: Map<number, number>;
}

/** A content command as sent: unselected (or, without elaborate_proofs, all) proofs sorried; selected declarations wrapped in the measure. */
function transformCommand(
  st: TransformState,
  cmd: Command,
  text: string,
): { text: string; silent: boolean } | undefined {
  const d = st.byStart.get(cmd.start);
  let out = text;
  let silent = false;
  if (d && d.kind === 'theorem' && d.bodySpan) {
    // Unselected proofs are not elaborated (spec rule 1); with elaborate_proofs false no proof is.
    if (st.explicit && !st.selected.has(d)) {
      out = sorryBody(text, d, cmd.start);
      silent = true;
    } else if (!st.elaborateProofs) {
      out = sorryBody(text, d, cmd.start);
      st.sorried.add(d);
    }
  }
  // Commands that go to Lean as one input with others (a `mutual` block, `attribute […] x in theorem …`) are not wrapped one by one.
  if (!d || !st.selected.has(d) || d.mutualGroup !== undefined || st.grouped.has(cmd.start))
    return out === text ? undefined : { text: out, silent };
  const w = wrapCommand(out, st.file.lines.toLean(cmd.start).column);
  st.prefixed.set(cmd.start, w.prefixLines);
  return { text: w.text, silent };
}

/** Per command: user messages back in place, measures and helper failures from the prefix lines. */
function readCommands(
  r: Elaborated,
  st: Pick<TransformState, 'file' | 'byStart' | 'prefixed' | 'sorried'>,
  tool: MessageSet,
): { measures: Map<SourceDecl, Measure>; declMessages: Map<SourceDecl, LeanMessage[]>; dropped: Set<LeanMessage> } {
  const { file, byStart, prefixed, sorried } = st;
  const measures = new Map<SourceDecl, Measure>();
  const declMessages = new Map<SourceDecl, LeanMessage[]>();
  const dropped = new Set<LeanMessage>();
  for (const c of r.commands) {
    const d = byStart.get(c.command.start);
    const p = prefixed.get(c.command.start);
    let msgs = c.messages;
    if (p !== undefined) {
      const { user, helper } = unwrap(c.messages, file.lines.toLean(c.command.start).line, p);
      msgs = user;
      for (const m of helper) {
        dropped.add(m);
        const parsed = parseMeasure(m);
        if (parsed instanceof Error) tool.errors.push(`extraction helper: ${parsed.message}`);
        else if (parsed && d) measures.set(d, parsed);
      }
    }
    if (!d) continue;
    // The sorry warnings of proofs this tool replaced are its own doing, not Lean's findings about the source.
    if (sorried.has(d)) for (const m of msgs) if (isSorryWarning(m)) dropped.add(m);
    declMessages.set(
      d,
      msgs.filter((m) => !dropped.has(m)),
    );
  }
  return { measures, declMessages, dropped };
}

/** The helper's answer about each probed declaration. */
function readInfos(
  probed: SourceDecl[],
  r: Elaborated<SourceDecl>,
  helperFailed: boolean,
  tool: MessageSet,
): Map<SourceDecl, Info> {
  const infos = new Map<SourceDecl, Info>();
  for (const d of probed) {
    for (const m of r.probes.get(d) ?? []) {
      const parsed = parseInfo(m);
      if (parsed instanceof Error) tool.errors.push(`extraction helper: ${parsed.message}`);
      else if (parsed) infos.set(d, parsed);
      else if (m.severity === 'error' && !helperFailed)
        tool.errors.push(`extraction helper, asking about '${d.fullName}': ${m.text}`);
    }
  }
  return infos;
}

interface DocumentSources {
  fs: ReturnType<typeof fileStructure>;
  sel: ReturnType<typeof selectDeclarations>;
  theoremsOnly: boolean;
  header: string;
  infos: Map<SourceDecl, Info>;
  probedSet: Set<SourceDecl>;
  helperFailed: boolean;
  sorried: Set<SourceDecl>;
  declMessages: Map<SourceDecl, LeanMessage[]>;
  measures: Map<SourceDecl, Measure>;
  /** Counts the standalone contents built (they grow with dependency depth): throws past the response bound. */
  charge: (chars: number) => void;
}

/** One document per selected declaration: the structural fields, and Lean's where it answered. */
function buildDocuments(src: DocumentSources, tool: MessageSet): Record<string, Document> {
  const { fs, sel, theoremsOnly, header, infos, probedSet, helperFailed, sorried, declMessages, measures } = src;
  const documents: Record<string, Document> = {};
  const keys = documentKeys(fs, sel.decls);
  for (const d of sel.decls) {
    if (theoremsOnly && d.kind !== 'theorem') continue;
    const info = infos.get(d);
    const ok = info && !('error' in info) ? info : undefined;
    if (probedSet.has(d) && !ok && !helperFailed)
      tool.warnings.push(
        `no Lean information for '${d.fullName}' (it did not elaborate${info && 'error' in info ? `: ${info.error}` : ''})`,
      );
    const noProof = sorried.has(d);
    const messages = toMessageSet(declMessages.get(d) ?? []);
    const m = measures.get(d);
    const structure = structuralDocument(fs, d);
    const content = sel.explicit ? '' : documentContent(fs, d, header);
    src.charge(content.length + structure.declaration.length);
    documents[keys.get(d)!] = {
      ...structure,
      kind: theoremsOnly ? 'theorem' : d.kind,
      content,
      type: ok?.type ?? '',
      type_hash: ok?.type_hash ?? null,
      unfolded_type_hash: ok?.unfolded_type_hash ?? null,
      type_depth: ok?.type_depth ?? 0,
      term_depth: noProof ? 0 : (ok?.term_depth ?? 0),
      is_sorry: noProof ? false : (ok?.is_sorry ?? false),
      wall_ms: m?.wall_ms ?? 0,
      heartbeats: m?.heartbeats ?? 0,
      local_type_dependencies: ok?.local_type_dependencies ?? [],
      external_type_dependencies: ok?.external_type_dependencies ?? [],
      local_value_dependencies: noProof ? [] : (ok?.local_value_dependencies ?? []),
      external_value_dependencies: noProof ? [] : (ok?.external_value_dependencies ?? []),
      // Lean's resolution of the written names when it answered: full names, constants only.
      external_syntactic_dependencies: ok
        ? ok.external_syntactic_dependencies
        : structure.external_syntactic_dependencies,
      declaration_messages: messages,
      theorem_messages: theoremsOnly ? messages : emptyMessages(),
    };
  }
  return documents;
}

function dedupe(set: MessageSet): MessageSet {
  return { errors: [...new Set(set.errors)], warnings: [...new Set(set.warnings)], infos: [...new Set(set.infos)] };
}

export const extract_decls: ToolImpl<'extract_decls'> = {
  needsLean: () => true,
  run: (req, ctx) => runExtract(req, ctx, false),
};

export const extract_theorems: ToolImpl<'extract_theorems'> = {
  needsLean: () => true,
  run: (req, ctx) => runExtract(req, ctx, true),
};
