/**
 * have2lemma: lift `have h : T := proof` out of the selected theorems into lemmas named
 * `<theorem>.<h>`, placed before the theorem. The lemma's context is what Lean reports at
 * the have: every have's proof is replaced by `sorry` in a probe elaboration, and the goal
 * Lean prints there (parameters, earlier haves, local hypotheses ⊢ T) becomes the lemma's
 * statement (`include_whole_context: false` applies the relevance heuristic). The lemma's
 * proof is `sorry`, or the have's own proof with `include_have_body`. With
 * `reconstruct_callsite`, the have's proof becomes an application of the lemma (or, when a
 * hypothesis has no usable name, a sorry with a comment naming the lemma, and a warning).
 */
import { applyEdits, insert, replace, type TextEdit } from '../syntax/edits.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { HAVE } from '../syntax/have-forms.ts';
import { findHaves, type HaveForm } from '../syntax/tactics.ts';
import { elaborateContent, type CommandOutcome, type Elaborated } from './elaborate.ts';
import type { ToolRequest } from '../contract/tools.ts';
import { lemmaFromGoal, parseGoals, type Goal } from './goals.ts';
import { finishOutput } from './output.ts';
import { declName, selectDeclarations } from './selection.ts';
import { withPrinting } from './printing.ts';
import type { ToolImpl } from './types.ts';

/** The outermost haves of a declaration that state a type and give a proof. */
function liftable(file: SourceFile, d: SourceDecl): HaveForm[] {
  if (!d.bodySig) return [];
  const out: HaveForm[] = [];
  let coveredUntil = -1;
  for (const h of findHaves(file.sig, d.bodySig[0], d.bodySig[1])) {
    if (!HAVE.has(h.keyword) || h.start < coveredUntil || !h.proof || !h.type) continue;
    out.push(h);
    coveredUntil = h.proof.end;
  }
  return out;
}

const haveName = (file: SourceFile, h: HaveForm) => {
  const b = h.binder ? file.text.slice(h.binder.start, h.binder.end).trim() : '';
  return /^[^\s⟨(]+$/.test(b) ? b : 'this';
};

interface LiftState {
  file: SourceFile;
  req: ToolRequest<'have2lemma'>;
  probe: Elaborated;
  /** Lemma names given so far → how many times (a repeated name gets `_n`). */
  used: Map<string, number>;
  warnings: string[];
  edits: TextEdit[];
  lemmaNames: string[];
}

/**
 * The same declaration in the probe's (header-substituted) file. The probe only replaced have
 * proofs, so the declaration keeps its place in the list; matching by name would confuse
 * declarations that share one (two `example`s).
 */
function probeDecl(
  s: LiftState,
  d: SourceDecl,
  index: number,
): { pd: SourceDecl; outcome: CommandOutcome } | undefined {
  const same = s.probe.file.decls[index];
  // By name and keyword, not by position: the probe's text may place the declaration elsewhere.
  const pd = same && same.fullName === d.fullName && same.keyword === d.keyword ? same : undefined;
  const outcome = pd && s.probe.commands.find((c) => c.command === pd.command);
  return pd && outcome ? { pd, outcome } : undefined;
}

/** Lifts one have whose goal Lean reported; returns the lemma's text, or undefined (with a warning). */
function liftHave(s: LiftState, d: SourceDecl, h: HaveForm, goal: Goal | undefined): string | undefined {
  const { file, req } = s;
  const base = `${declName(d, file)}.${haveName(file, h)}`;
  if (!goal) {
    s.warnings.push(
      `${base}: Lean reported no goal at this have (line ${file.lines.toLean(h.start).line}); not lifted`,
    );
    return undefined;
  }
  const n = s.used.get(base) ?? 0;
  s.used.set(base, n + 1);
  const name = n === 0 ? base : `${base}_${n}`;
  const proofText = req.content.slice(h.proof!.start, h.proof!.end);
  const lemma = lemmaFromGoal(name, goal, req.include_whole_context, req.include_have_body ? proofText : undefined);
  s.lemmaNames.push(name);
  if (!req.reconstruct_callsite) return lemma.text;
  if (lemma.inaccessible) {
    s.warnings.push(
      `${name}: a hypothesis has no usable name, so the call site keeps a sorry; apply ${name} there by hand`,
    );
    s.edits.push(replace(h.proof!.start, h.proof!.end, `sorry /- see ${name} -/`));
  } else {
    s.edits.push(replace(h.proof!.start, h.proof!.end, [name, ...lemma.args].join(' ')));
  }
  return lemma.text;
}

/** Lifts the haves of one declaration, reading each one's goal at the probe's `sorry` in its place. */
function liftDecl(s: LiftState, d: SourceDecl, index: number, haves: HaveForm[]): void {
  const found = probeDecl(s, d, index);
  if (!found) return;
  const probeHaves = liftable(s.probe.file, found.pd);
  const lemmas: string[] = [];
  haves.forEach((h, i) => {
    const ph = probeHaves[i];
    const at = ph?.proof ? s.probe.file.lines.toLean(ph.proof.start) : undefined;
    const sorry = at && found.outcome.sorries.find((x) => x.pos?.line === at.line && x.pos.column === at.column);
    const lemma = liftHave(s, d, h, sorry ? parseGoals(sorry.goal)[0] : undefined);
    if (lemma !== undefined) lemmas.push(lemma);
  });
  if (lemmas.length > 0) s.edits.push(insert(d.command.start, `${lemmas.join('\n\n')}\n\n`));
}

export const have2lemma: ToolImpl<'have2lemma'> = {
  // The lemma statements come from Lean's goals, so Lean is needed even without reparse.
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const file = parseSource(req.content);
    const sel = selectDeclarations(file, req);
    const targets = sel.decls.map((d) => ({ d, haves: liftable(file, d) })).filter((x) => x.haves.length > 0);

    // Probe: every liftable have's proof → sorry; Lean reports the goal at each.
    const probeText = applyEdits(
      req.content,
      targets.flatMap((x) => x.haves.map((h) => replace(h.proof!.start, h.proof!.end, 'sorry'))),
    );
    const probe = await elaborateContent(probeText, withPrinting({ ...req, goalPrinting: true }), ctx);
    const errors = [...sel.errors, ...probe.toolErrors];
    const s: LiftState = { file, req, probe, used: new Map(), warnings: [], edits: [], lemmaNames: [] };
    if (!probe.failure) {
      const indexOf = new Map(file.decls.map((d, i) => [d, i]));
      for (const { d, haves } of targets) liftDecl(s, d, indexOf.get(d)!, haves);
    }
    const output = applyEdits(req.content, s.edits);
    const finished = await finishOutput(output, ctx, {
      ...req,
      toolErrors: errors,
      toolWarnings: s.warnings,
      startedAt,
      parseMs: probe.parseMs,
    });
    return { ...finished, lemma_names: s.lemmaNames };
  },
};
