/**
 * rename: rename declarations (old full name → new full name) and every reference to them.
 *   - references are resolved the way Lean would for names declared in this file
 *     (namespaces, `open`s, `_root_`), including `foo.mp`-style projections on a constant
 *     and dot notation `x.foo` on values;
 *   - renaming an inductive type or structure renames its constructors with it;
 *   - all renames apply at once to the original text, so they are not transitive
 *     (A→B and B→C leave A as B).
 * Local binders that share a renamed declaration's name are renamed too (no binder analysis).
 */
import { renameInSource } from '../syntax/renaming.ts';
import { finishOutput } from './output.ts';
import type { ToolImpl } from './types.ts';

export const rename: ToolImpl<'rename'> = {
  needsLean: (req) => req.reparse,
  async run(req, ctx) {
    const startedAt = performance.now();
    // The output size is known from the edits: refused before it is built.
    const r = renameInSource(req.content, req.declarations, ctx.maxResponseChars);
    return finishOutput(r.output, ctx, {
      ...req,
      toolErrors: r.errors,
      toolWarnings: r.warnings,
      startedAt,
      parseMs: performance.now() - startedAt,
    });
  },
};
