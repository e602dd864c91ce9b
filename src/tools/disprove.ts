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
import { emptyMessages, type MessageSet } from '../contract/common.ts';
import type { ToolRequest } from '../contract/tools.ts';
import type { LeanMessage } from '../backend/index.ts';
import type { SourceFile } from '../syntax/source.ts';
import { inDeclScope, piType, scopeCommands } from '../syntax/statements.ts';
import { elaborateContent, type Elaborated, type Probe } from './elaborate.ts';
import { parseAxioms, printAxiomsCommand } from './lean-texts.ts';
import { declName, selectDeclarations } from './selection.ts';
import { withPrinting } from './printing.ts';
import type { ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

interface Attempt {
  name: string;
  negated: string;
  tactic: string;
}

/** One probe per (theorem, terminal tactic): a named theorem of the negation, then `#print axioms` of it. */
function planAttempts(file: SourceFile, req: ToolRequest<'disprove'>, tool: MessageSet): Probe<Attempt>[] {
  const sel = selectDeclarations(file, req);
  pushAll(tool.errors, sel.errors);
  const out: Probe<Attempt>[] = [];
  for (const d of sel.decls) {
    const type = d.kind === 'theorem' ? piType(file, d) : undefined;
    if (!type) {
      tool.warnings.push(`'${declName(d, file)}': no statement to negate`);
      continue;
    }
    const negated = `¬ (${type})`;
    // Under section variables the theorem's statement has them as binders, which its written signature
    // lacks: the probe negates the elaborated type itself, `type_of% @_root_.<name>` [lean4 v4.28.0:
    // src/Lean/Elab/BuiltinNotation.lean, `elabTypeOf`], so the variables stay inside the `¬` (issue 27,
    // defect 13). The `negated` field keeps the written form.
    const withVariables = d.fullName !== undefined && scopeCommands(file, d).some((c) => /^\s*variable\b/.test(c));
    const probed = withVariables ? `¬ (type_of% @_root_.${d.fullName})` : negated;
    for (const tactic of req.terminal_tactics) {
      const lemma = `axle_disprove_${out.length}`;
      const text = inDeclScope(file, d, [
        `theorem ${lemma} : ${probed} := by`,
        `  ${tactic}`,
        printAxiomsCommand(d.namespace ? `${d.namespace}.${lemma}` : lemma),
      ]);
      out.push({ key: { name: declName(d, file), negated, tactic }, text });
    }
  }
  return out;
}

/** Why an attempt did not count as a proof: Lean's first error, a sorry, or no axioms answer. */
function failureReason(probe: LeanMessage[] | undefined, errs: LeanMessage[], axioms: string[] | undefined): string {
  if (errs[0]) return errs[0].text.split('\n').slice(0, 6).join('\n');
  if (axioms?.includes('sorryAx')) return 'the proof uses sorry';
  return probe === undefined ? 'not run' : 'Lean did not confirm the proof (no #print axioms answer)';
}

/** Reads the attempts in order: the first tactic that proves a negation without sorry disproves the theorem. */
function readAttempts(attempts: readonly Attempt[], r: Elaborated<Attempt>) {
  const results: Record<string, string> = {};
  const negated: Record<string, string> = {};
  const disproved = new Set<string>();
  const failures = new Map<string, string[]>();
  for (const a of attempts) {
    negated[a.name] = a.negated;
    if (disproved.has(a.name) || r.failure) continue;
    const probe = r.probes.get(a);
    const errs = (probe ?? []).filter((m) => m.severity === 'error');
    const axioms = (probe ?? [])
      .flatMap((m) => (m.severity === 'info' ? [parseAxioms(m.text)] : []))
      .find((x) => x !== undefined)?.axioms;
    if (probe !== undefined && errs.length === 0 && axioms !== undefined && !axioms.includes('sorryAx')) {
      disproved.add(a.name);
      results[a.name] = `Disprove: the negation was proved with \`${a.tactic}\``;
    } else {
      failures.set(a.name, [...(failures.get(a.name) ?? []), `${a.tactic}: ${failureReason(probe, errs, axioms)}`]);
    }
  }
  for (const [name, why] of failures)
    if (!disproved.has(name)) results[name] = `Disprove: proof of the negation failed (${why.join('; ')})`;
  return { results, negated, disproved: [...disproved] };
}

export const disprove: ToolImpl<'disprove'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const tool = emptyMessages();
    // The probes are planned on the content as the backend will see it (header substituted).
    let planned: Probe<Attempt>[] = [];
    const r = await elaborateContent(req.content, withPrinting(req), ctx, {
      probes: (file) => (planned = planAttempts(file, req, tool)),
    });
    pushAll(tool.errors, r.toolErrors);
    pushAll(tool.warnings, r.toolWarnings);
    const { results, negated, disproved } = readAttempts(
      planned.map((p) => p.key),
      r,
    );
    return {
      content: r.content,
      lean_messages: toMessageSet(r.messages),
      tool_messages: tool,
      results,
      negated,
      disproved_theorems: disproved,
      timings: {
        parse_ms: Math.round(r.parseMs),
        elaborate_ms: Math.round(r.elaborateMs),
        total_ms: Math.round(performance.now() - startedAt),
      },
    };
  },
};
