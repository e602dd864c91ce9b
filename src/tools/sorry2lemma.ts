/**
 * sorry2lemma: lift each `sorry` (with the goals Lean reports there) and each "unsolved
 * goals" error location of the selected theorems into standalone lemmas placed before the
 * theorem: `<theorem>.sorried`, `<theorem>.sorried_1` (further goals), `<theorem>.unsolved`.
 * With reconstruct_callsite, the sorry becomes `exact <lemma> <args>` (several goals:
 * `first | exact … | exact …`; in a term, the application); when a hypothesis has no usable
 * name the call site keeps its sorry, with a comment naming the lemma, and a tool warning.
 */
import { UNSOLVED_GOALS_RE } from './lean-texts.ts';
import { emptyMessages } from '../contract/common.ts';
import { applyEdits, insert, replace, type TextEdit } from '../syntax/edits.ts';
import type { SourceDecl, SourceFile } from '../syntax/source.ts';
import { elaborateContent, prepareContent, type Elaborated } from './elaborate.ts';
import { lemmaFromGoal, parseGoals, type Goal } from './goals.ts';
import { finishOutput } from './output.ts';
import { declName, selectDeclarations } from './selection.ts';
import { withPrinting } from './printing.ts';
import type { ToolRequest } from '../contract/tools.ts';
import type { ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

/** Does the `sorry` at significant token k stand for a tactic (rather than a term)? */
function isTacticSorry(file: SourceFile, d: SourceDecl, k: number): boolean {
  if (d.bodyForm !== 'tactic') return false;
  const prev = file.sig.text[k - 1];
  return file.sig.firstOnLine[k] === true || ['by', ';', '·', '.', '=>', '<;>', '|'].includes(prev ?? '');
}

export const sorry2lemma: ToolImpl<'sorry2lemma'> = {
  needsLean: (req) => req.extract_sorries || req.extract_errors,
  async run(req, ctx) {
    const startedAt = performance.now();
    if (!req.extract_sorries && !req.extract_errors) {
      const tool = emptyMessages();
      tool.infos.push('extract_sorries and extract_errors are both false: nothing to do');
      return {
        content: prepareContent(req.content, ctx.env, req.ignore_imports).content,
        lean_messages: emptyMessages(),
        tool_messages: tool,
        lemma_names: [],
        timings: { total_ms: Math.round(performance.now() - startedAt) },
      };
    }
    const r = await elaborateContent(req.content, withPrinting({ ...req, goalPrinting: true }), ctx);
    if (r.failure) {
      const tool = emptyMessages();
      pushAll(tool.errors, r.toolErrors);
      return {
        content: r.content,
        lean_messages: emptyMessages(),
        tool_messages: tool,
        lemma_names: [],
        timings: { total_ms: Math.round(performance.now() - startedAt) },
      };
    }
    const file = r.file;
    const sel = selectDeclarations(file, req);
    const edits: TextEdit[] = [];
    const lemmaNames: string[] = [];
    const warnings: string[] = [];
    // One map for the request: a lemma can stand for duplicates in later declarations too (it is placed before them).
    const made = req.merge_duplicates ? new Map<string, string>() : undefined;
    for (const d of sel.decls) {
      const outcome = r.commands.find((c) => c.command === d.command);
      if (!outcome) continue;
      const lifted: Lifted = { lemmas: [], lemmaNames, edits, warnings, ...(made ? { made } : {}) };
      if (req.extract_sorries) liftSorries(req, file, d, outcome.sorries, lifted);
      if (req.extract_errors) liftUnsolvedGoals(req, file, d, outcome.messages, lifted);
      if (lifted.lemmas.length > 0) edits.push(insert(d.command.start, `${lifted.lemmas.join('\n\n')}\n\n`));
    }
    const output = applyEdits(r.content, edits);
    const finished = await finishOutput(output, ctx, {
      ...req,
      reparse: true,
      toolErrors: sel.errors,
      toolWarnings: warnings,
      startedAt,
      parseMs: r.parseMs,
    });
    return { ...finished, lemma_names: lemmaNames };
  },
};

/** What lifting produces: one declaration's lemma texts, and for the answer the names, call-site edits and warnings. */
interface Lifted {
  lemmas: string[];
  lemmaNames: string[];
  edits: TextEdit[];
  warnings: string[];
  /** With merge_duplicates: each lemma statement made so far (namespace and text after the name) to its name. */
  made?: Map<string, string>;
}

/**
 * A lemma for the answer, or, with merge_duplicates, the earlier lemma with the same statement
 * in the same namespace (its call sites then point at that one). Returns the name to call.
 */
function addLemma(out: Lifted, d: SourceDecl, name: string, text: string): { name: string; fresh: boolean } {
  const key = out.made && `${d.namespace}\u0000${text.slice(`theorem ${name}`.length).replace(/\s+/g, ' ')}`;
  const earlier = key === undefined ? undefined : out.made!.get(key);
  if (earlier !== undefined) return { name: earlier, fresh: false };
  if (key !== undefined) out.made!.set(key, name);
  out.lemmas.push(text);
  out.lemmaNames.push(name);
  return { name, fresh: true };
}

type Outcome = Elaborated['commands'][number];

/** extract_sorries: a lemma per goal at each sorry, `<theorem>.sorried`, `_1`, …; with reconstruct_callsite, the call replaces the sorry. */
function liftSorries(
  req: ToolRequest<'sorry2lemma'>,
  file: SourceFile,
  d: SourceDecl,
  sorries: Outcome['sorries'],
  out: Lifted,
): void {
  const base = declName(d, file);
  let sorried = 0;
  // One entry per goal: a sorry run on several goals (`<;> sorry`) is reported once per goal at one place.
  const byPos = new Map<string, { pos: { line: number; column: number }; goals: Goal[] }>();
  for (const s of sorries) {
    if (!s.pos) continue;
    const key = `${s.pos.line}:${s.pos.column}`;
    const entry = byPos.get(key) ?? { pos: s.pos, goals: [] };
    pushAll(entry.goals, parseGoals(s.goal));
    byPos.set(key, entry);
  }
  for (const { pos, goals } of byPos.values()) {
    const made = goals.map((g) => {
      const name = `${base}.sorried${sorried ? `_${sorried}` : ''}`;
      const lemma = lemmaFromGoal(name, g, req.include_whole_context);
      const added = addLemma(out, d, name, lemma.text);
      if (added.fresh) sorried++;
      return { ...lemma, name: added.name };
    });
    if (!req.reconstruct_callsite || made.length === 0) continue;
    const at = file.lines.fromLean(pos);
    const k = file.sig.start.indexOf(at);
    if (k < 0 || file.sig.text[k] !== 'sorry') continue;
    if (made.some((m) => m.inaccessible)) {
      out.warnings.push(
        `${base}: a hypothesis at line ${pos.line} has no usable name, so the call site keeps its sorry; use ${made.map((m) => m.name).join(' or ')}`,
      );
      out.edits.push(replace(at, at + 5, `sorry /- see ${made.map((m) => m.name).join(', ')} -/`));
      continue;
    }
    const call = (m: (typeof made)[number]) => [m.name, ...m.args].join(' ');
    if (isTacticSorry(file, d, k)) {
      out.edits.push(
        replace(
          at,
          at + 5,
          made.length === 1 ? `exact ${call(made[0]!)}` : `first ${made.map((m) => `| exact ${call(m)}`).join(' ')}`,
        ),
      );
    } else {
      out.edits.push(replace(at, at + 5, `(${call(made[0]!)})`));
    }
  }
}

/** extract_errors: a lemma per goal of each "unsolved goals" error, `<theorem>.unsolved`, `_1`, …. */
function liftUnsolvedGoals(
  req: ToolRequest<'sorry2lemma'>,
  file: SourceFile,
  d: SourceDecl,
  messages: Outcome['messages'],
  out: Lifted,
): void {
  const base = declName(d, file);
  let unsolved = 0;
  for (const m of messages) {
    if (m.severity !== 'error' || !UNSOLVED_GOALS_RE.test(m.text)) continue;
    for (const g of parseGoals(m.text.slice(m.text.indexOf('\n') + 1))) {
      const name = `${base}.unsolved${unsolved ? `_${unsolved}` : ''}`;
      if (addLemma(out, d, name, lemmaFromGoal(name, g, req.include_whole_context).text).fresh) unsolved++;
    }
  }
}
