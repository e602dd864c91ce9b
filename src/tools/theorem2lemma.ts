/** theorem2lemma: switch the keyword of the selected theorems between `theorem` and `lemma`. */
import { replace } from '../syntax/edits.ts';
import { rewriteSelected } from './output.ts';
import type { ToolImpl } from './types.ts';

export const theorem2lemma: ToolImpl<'theorem2lemma'> = {
  needsLean: (req) => req.reparse,
  run: (req, ctx) =>
    rewriteSelected(req, ctx, (_file, sel) => {
      const from = req.target === 'lemma' ? 'theorem' : 'lemma';
      // Non-theorem kinds (def, instance, …) are left unchanged even when selected.
      return {
        edits: sel.decls
          .filter((d) => d.keyword === from)
          .map((d) => replace(d.keywordSpan.start, d.keywordSpan.end, req.target)),
      };
    }),
};
