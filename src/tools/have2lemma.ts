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
import { elaborateContent } from './elaborate.ts';
import { lemmaFromGoal, parseGoals } from './goals.ts';
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

export const have2lemma: ToolImpl<'have2lemma'> = {
  // The lemma statements come from Lean's goals, so Lean is needed even without reparse.
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const file = parseSource(req.content);
    const sel = selectDeclarations(file, req);
    const targets = sel.decls.map((d) => ({ d, haves: liftable(file, d) })).filter((x) => x.haves.length > 0);

    // Probe: every liftable have's proof → sorry; Lean reports the goal at each.
    const probeText = applyEdits(req.content, targets.flatMap((x) => x.haves.map((h) => replace(h.proof!.start, h.proof!.end, 'sorry'))));
    const probe = await elaborateContent(probeText, withPrinting({ ...req, goalPrinting: true }), ctx);
    const warnings: string[] = [];
    const errors = [...sel.errors, ...probe.toolErrors];
    const edits: TextEdit[] = [];
    const lemmaNames: string[] = [];
    if (!probe.failure) {
      const used = new Map<string, number>();
      for (const { d, haves } of targets) {
        // The same declaration in the probe's (header-substituted) file, and its haves there. The probe
        // only replaced have proofs, so the declaration keeps its place in the list; matching by name
        // would confuse declarations that share one (two `example`s).
        const same = probe.file.decls[file.decls.indexOf(d)];
        const pd = same && declName(same) === declName(d) && same.keyword === d.keyword ? same : undefined;
        const outcome = pd && probe.commands.find((c) => c.command === pd.command);
        if (!pd || !outcome) continue;
        const probeHaves = liftable(probe.file, pd);
        const lemmas: string[] = [];
        haves.forEach((h, i) => {
          const ph = probeHaves[i];
          const at = ph?.proof ? probe.file.lines.toLean(ph.proof.start) : undefined;
          const s = at && outcome.sorries.find((x) => x.pos?.line === at.line && x.pos.column === at.column);
          const goal = s ? parseGoals(s.goal)[0] : undefined;
          const base = `${declName(d)}.${haveName(file, h)}`;
          if (!goal) {
            warnings.push(`${base}: Lean reported no goal at this have (line ${file.lines.toLean(h.start).line}); not lifted`);
            return;
          }
          const n = used.get(base) ?? 0;
          used.set(base, n + 1);
          const name = n === 0 ? base : `${base}_${n}`;
          const proofText = req.content.slice(h.proof!.start, h.proof!.end);
          const lemma = lemmaFromGoal(name, goal, req.include_whole_context, req.include_have_body ? proofText : undefined);
          lemmas.push(lemma.text);
          lemmaNames.push(name);
          if (!req.reconstruct_callsite) return;
          if (lemma.inaccessible) {
            warnings.push(`${name}: a hypothesis has no usable name, so the call site keeps a sorry; apply ${name} there by hand`);
            edits.push(replace(h.proof!.start, h.proof!.end, `sorry /- see ${name} -/`));
          } else {
            edits.push(replace(h.proof!.start, h.proof!.end, [name, ...lemma.args].join(' ')));
          }
        });
        if (lemmas.length > 0) edits.push(insert(d.command.start, `${lemmas.join('\n\n')}\n\n`));
      }
    }
    const output = applyEdits(req.content, edits);
    const finished = await finishOutput(output, ctx, { ...req, toolErrors: errors, toolWarnings: warnings, startedAt, parseMs: probe.parseMs });
    return { ...finished, lemma_names: lemmaNames };
  },
};
