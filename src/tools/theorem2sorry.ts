/**
 * theorem2sorry: replace the proof of each selected theorem with the term `sorry`, as AXLE
 * reprints it (`:= sorry`, whether the proof was a term, a `by` block or equations);
 * `termination_by`/`decreasing_by` clauses go with the proof; unselected theorems keep theirs.
 */
import type { Span } from '../syntax/commands.ts';
import { replace, type TextEdit } from '../syntax/edits.ts';
import type { SourceDecl } from '../syntax/source.ts';
import { maxOf } from '../util/arrays.ts';
import { rewriteSelected } from './output.ts';
import { declName } from './selection.ts';
import type { ToolImpl } from './types.ts';

/** The edit that replaces a declaration's proof by sorry, or undefined when it has none. */
export function proofToSorry(text: string, d: SourceDecl): TextEdit | undefined {
  if (!d.bodySpan) return undefined;
  const dropped = d.trailing.filter((t) => t.keyword === 'termination_by' || t.keyword === 'decreasing_by');
  const end = maxOf(
    d.bodySpan.end,
    dropped.map((t: { span: Span }) => t.span.end),
  );
  // A replaced proof is separated from what follows: `:= (h)where …` must not become `:= sorrywhere …`.
  const sep = end < text.length && !/\s/.test(text[end]!) ? ' ' : '';
  if (d.bodyForm === 'equations' || d.bodyForm === 'where') {
    // `| pat => …` alternatives: the whole value becomes `:= sorry` after the signature.
    return replace(d.signatureSpan.end, end, ` := sorry${sep}`);
  }
  const body = text.slice(d.bodySpan.start, d.bodySpan.end);
  if (/^sorry\s*$/.test(body) && end === d.bodySpan.end) return undefined; // already the term sorry
  // A `by` block becomes the term too (AXLE: `theorem foo : 1 = 1 := sorry`), so the `by` goes.
  return replace(d.bodySpan.start, end, `sorry${sep}`);
}

const STRUCTURAL = new Set(['structure', 'class', 'inductive', 'class inductive', 'axiom']);

export const theorem2sorry: ToolImpl<'theorem2sorry'> = {
  needsLean: (req) => req.reparse,
  // With theorems_only false, defs and instances lose their values too; types (structure, inductive…) have none to lose.
  run: (req, ctx) =>
    rewriteSelected(req, ctx, (file, sel) => {
      const kept = sel.decls.filter((d) => !STRUCTURAL.has(d.kind));
      // A declaration whose proof the model cannot find is named, never skipped silently.
      const warnings = kept
        .filter((d) => !d.bodySpan)
        .map(
          (d) =>
            `no proof found for '${declName(d, file)}' (line ${file.lines.lineOf(d.command.start) + 1}); left unchanged`,
        );
      return {
        edits: kept.map((d) => proofToSorry(req.content, d)).filter((e) => e !== undefined),
        warnings,
      };
    }),
};
