/** theorem2lemma: switch the keyword of the selected theorems between `theorem` and `lemma`. */
import { applyEdits, replace } from '../syntax/edits.ts';
import { parseSource } from '../syntax/source.ts';
import { finishOutput } from './output.ts';
import { declName, selectDeclarations } from './selection.ts';
import type { ToolImpl } from './types.ts';

export const theorem2lemma: ToolImpl<'theorem2lemma'> = {
  needsLean: (req) => req.reparse,
  async run(req, ctx) {
    const startedAt = performance.now();
    const file = parseSource(req.content);
    const sel = selectDeclarations(file, req);
    const from = req.target === 'lemma' ? 'theorem' : 'lemma';
    // Non-theorem kinds (def, instance, …) are left unchanged even when selected.
    const edits = sel.decls.filter((d) => d.keyword === from).map((d) => replace(d.keywordSpan.start, d.keywordSpan.end, req.target));
    const output = applyEdits(req.content, edits);
    return finishOutput(output, ctx, {
      ...req,
      onlyProofsOf: sel.explicit ? new Set(sel.decls.map(declName)) : undefined,
      toolErrors: sel.errors,
      startedAt,
      parseMs: performance.now() - startedAt,
    });
  },
};
