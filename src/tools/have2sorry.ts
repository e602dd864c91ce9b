/**
 * have2sorry: in the selected theorems, replace the proof of every `have` with `sorry`,
 * keeping its statement and the proof's structure. Only outermost haves are rewritten
 * (an inner have disappears with its enclosing proof). A have without a stated type, or
 * Mathlib's `have h : T` whose proof follows as tactics, is kept, with a tool warning.
 */
import { replace, type TextEdit } from '../syntax/edits.ts';
import type { SourceDecl, SourceFile } from '../syntax/source.ts';
import { HAVE } from '../syntax/have-forms.ts';
import { findHaves } from '../syntax/tactics.ts';
import { rewriteSelected } from './output.ts';
import { declName } from './selection.ts';
import type { ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

export function havesToSorry(file: SourceFile, d: SourceDecl): { edits: TextEdit[]; warnings: string[] } {
  const edits: TextEdit[] = [];
  const warnings: string[] = [];
  if (!d.bodySig) return { edits, warnings };
  let coveredUntil = -1;
  for (const h of findHaves(file.sig, d.bodySig[0], d.bodySig[1])) {
    if (!HAVE.has(h.keyword) || h.start < coveredUntil) continue;
    const where = `${declName(d, file)}, line ${file.lines.toLean(h.start).line}`;
    if (!h.proof) {
      warnings.push(`have without ':=' kept (its proof is the following tactics) in ${where}`);
      continue;
    }
    if (!h.type) {
      warnings.push(`have without a stated type kept (its proof determines its type) in ${where}`);
      coveredUntil = h.end;
      continue;
    }
    if (file.text.slice(h.proof.start, h.proof.end).trim() !== 'sorry')
      edits.push(replace(h.proof.start, h.proof.end, 'sorry'));
    coveredUntil = h.proof.end;
  }
  return { edits, warnings };
}

export const have2sorry: ToolImpl<'have2sorry'> = {
  // No `reparse` parameter for this tool in the spec: its output is always elaborated.
  needsLean: () => true,
  run: (req, ctx) =>
    rewriteSelected({ ...req, reparse: true }, ctx, (file, sel) => {
      const edits: TextEdit[] = [];
      const warnings: string[] = [];
      for (const d of sel.decls) {
        const r = havesToSorry(file, d);
        pushAll(edits, r.edits);
        pushAll(warnings, r.warnings);
      }
      return { edits, warnings };
    }),
};
