/**
 * disprove: for each selected theorem, try to prove its negation `¬ (∀ binders, type)` with
 * the terminal tactics, in order, each as an `example` in the theorem's namespace and opens,
 * after the content. A theorem whose negation is proved is listed in disproved_theorems.
 * (Counterexample search runs when a terminal tactic does it, e.g. `plausible` with Mathlib.)
 */
import { toMessageSet } from '../backend/index.ts';
import { emptyMessages } from '../contract/common.ts';
import { elaborateContent } from './elaborate.ts';
import { declName, selectDeclarations } from './selection.ts';
import type { ToolImpl } from './types.ts';
import { inDeclScope, piType } from './verify-proof.ts';
import { pushAll } from '../util/arrays.ts';

export const disprove: ToolImpl<'disprove'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const tool = emptyMessages();
    // The probes are planned on the content as the backend will see it (header substituted).
    const attempts: { name: string; negated: string; tactic: string }[] = [];
    const r = await elaborateContent(req.content, req, ctx, {
      probes: (file) => {
        const sel = selectDeclarations(file, req);
        pushAll(tool.errors, sel.errors);
        const out: string[] = [];
        for (const d of sel.decls) {
          const type = d.kind === 'theorem' ? piType(file, d) : undefined;
          if (!type) {
            tool.warnings.push(`'${declName(d)}': no statement to negate`);
            continue;
          }
          const negated = `¬ (${type})`;
          for (const tactic of req.terminal_tactics) {
            attempts.push({ name: declName(d), negated, tactic });
            out.push(inDeclScope(file, d, [`example : ${negated} := by`, `  ${tactic}`]));
          }
        }
        return out;
      },
    });
    pushAll(tool.errors, r.toolErrors);
    pushAll(tool.warnings, r.toolWarnings);
    const results: Record<string, string> = {};
    const negated: Record<string, string> = {};
    const disproved: string[] = [];
    const failures = new Map<string, string[]>();
    attempts.forEach((a, i) => {
      negated[a.name] = a.negated;
      if (disproved.includes(a.name) || r.failure) return;
      const errs = (r.probes[i] ?? []).filter((m) => m.severity === 'error');
      if (errs.length === 0 && r.probes[i] !== undefined) {
        disproved.push(a.name);
        results[a.name] = `Disprove: the negation was proved with \`${a.tactic}\``;
      } else failures.set(a.name, [...(failures.get(a.name) ?? []), `${a.tactic}: ${errs[0]?.text.split('\n').slice(0, 6).join('\n') ?? 'not run'}`]);
    });
    for (const [name, why] of failures) if (!disproved.includes(name)) results[name] = `Disprove: proof of the negation failed (${why.join('; ')})`;
    return {
      content: r.content,
      lean_messages: toMessageSet(r.messages),
      tool_messages: tool,
      results,
      negated,
      disproved_theorems: disproved,
      timings: { parse_ms: Math.round(r.parseMs), elaborate_ms: Math.round(r.elaborateMs), total_ms: Math.round(performance.now() - startedAt) },
    };
  },
};
