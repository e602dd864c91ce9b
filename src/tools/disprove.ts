/**
 * disprove: for each selected theorem, try to prove its negation `¬ (∀ binders, type)` with
 * the terminal tactics, in order, each as an `example` in the theorem's namespace and opens,
 * after the content. A theorem whose negation is proved is listed in disproved_theorems.
 * "Proved" means no error and no `sorryAx`: a tactic may close a goal through `sorry`
 * (`sorry` itself, or `plausible`/`aesop` leaving one), which Lean only warns about, so each
 * attempt is a named theorem followed by `#print axioms` of it, read like check's.
 * (Counterexample search runs when a terminal tactic does it, e.g. `plausible` with Mathlib.)
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { inDeclScope, piType } from '../syntax/statements.ts';
import { elaborateContent } from './elaborate.ts';
import { parseAxioms } from './lean-texts.ts';
import { declName, selectDeclarations } from './selection.ts';
import { withPrinting } from './printing.ts';
import type { ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

export const disprove: ToolImpl<'disprove'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const tool = emptyMessages();
    // The probes are planned on the content as the backend will see it (header substituted).
    const attempts: { name: string; negated: string; tactic: string }[] = [];
    const r = await elaborateContent(req.content, withPrinting(req), ctx, {
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
            const lemma = `axle_disprove_${attempts.length}`;
            attempts.push({ name: declName(d), negated, tactic });
            out.push(inDeclScope(file, d, [`theorem ${lemma} : ${negated} := by`, `  ${tactic}`, `#print axioms ${lemma}`]));
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
      const probe = r.probes[i];
      const errs = (probe ?? []).filter((m) => m.severity === 'error');
      const axioms = (probe ?? []).flatMap((m) => (m.severity === 'info' ? [parseAxioms(m.text)] : [])).find((x) => x !== undefined)?.axioms;
      if (probe !== undefined && errs.length === 0 && axioms !== undefined && !axioms.includes('sorryAx')) {
        disproved.push(a.name);
        results[a.name] = `Disprove: the negation was proved with \`${a.tactic}\``;
      } else {
        const why = errs[0]?.text.split('\n').slice(0, 6).join('\n') ?? (axioms?.includes('sorryAx') ? 'the proof uses sorry' : probe === undefined ? 'not run' : 'Lean did not confirm the proof (no #print axioms answer)');
        failures.set(a.name, [...(failures.get(a.name) ?? []), `${a.tactic}: ${why}`]);
      }
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
