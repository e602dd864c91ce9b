/**
 * disprove: for each selected theorem, try to prove its negation `¬ (∀ binders, type)` with
 * the terminal tactics, in order, each as a named theorem in the theorem's namespace and opens,
 * after the content, and search for a counter-example to the theorem itself with Plausible
 * (plausible.ts). A theorem whose negation is proved is listed in disproved_theorems.
 * "Proved" means no error and no `sorryAx`: a tactic may close a goal through `sorry`
 * (`sorry` itself, or `plausible`/`aesop` leaving one), which Lean only warns about, so each
 * attempt is a named theorem followed by `#print axioms` of it, read like check's.
 * A counter-example found by the search is reported in the theorem's result (the spec's
 * "found counter-example with the issue text and the number of shrinks") but is not a proof of the
 * negation (spec: "listed in disproved_theorems when its negation was proved"): the theorem is
 * listed only when a terminal tactic proves the negation too.
 * The probes run at the top level (elaborate.ts leaves the scopes the content leaves open first): content
 * that ends inside `namespace Foo` would otherwise nest the probe's own `namespace Foo` in it.
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages, type MessageSet } from '../contract/common.ts';
import type { ToolRequest } from '../contract/tools.ts';
import type { LeanMessage } from '../backend/index.ts';
import type { SourceDecl, SourceFile } from '../syntax/source.ts';
import { inDeclScope, piType, scopeCommands } from '../syntax/statements.ts';
import { elaborateContent, type Elaborated, type Probe } from './elaborate.ts';
import { parseAxioms, printAxiomsCommand } from './lean-texts.ts';
import { PLAUSIBLE_TACTIC, readSearch, searchSummary, type SearchOutcome } from './plausible.ts';
import { declName, selectDeclarations } from './selection.ts';
import { withPrinting } from './printing.ts';
import type { ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

interface Attempt {
  name: string;
  negated: string;
  /** A terminal tactic tried on the negation, or undefined for the counter-example search on the theorem. */
  tactic: string | undefined;
}

/**
 * The statement as a probe states it. Under section variables the theorem's statement has them as binders,
 * which its written signature lacks: the probe then uses the elaborated type itself, `type_of% @_root_.<name>`
 * [lean4 v4.28.0: src/Lean/Elab/BuiltinNotation.lean, `elabTypeOf`], so the variables stay inside the `¬`.
 */
function probedType(file: SourceFile, d: SourceDecl, type: string): string {
  const withVariables = d.fullName !== undefined && scopeCommands(file, d).some((c) => /^\s*variable\b/.test(c));
  return withVariables ? `type_of% @_root_.${d.fullName}` : type;
}

/**
 * Per theorem: the counter-example search (`example : <statement> := by plausible …`), then one probe per
 * terminal tactic (a named theorem of the negation, then `#print axioms` of it).
 */
function planAttempts(file: SourceFile, req: ToolRequest<'disprove'>, tool: MessageSet): Probe<Attempt>[] {
  const sel = selectDeclarations(file, req);
  pushAll(tool.errors, sel.errors);
  const out: Probe<Attempt>[] = [];
  let n = 0;
  for (const d of sel.decls) {
    const type = d.kind === 'theorem' ? piType(file, d) : undefined;
    if (!type) {
      tool.warnings.push(`'${declName(d, file)}': no statement to negate`);
      continue;
    }
    const negated = `¬ (${type})`;
    const stated = probedType(file, d, type);
    const search = inDeclScope(file, d, [`example : ${stated} := by`, `  ${PLAUSIBLE_TACTIC}`]);
    out.push({ key: { name: declName(d, file), negated, tactic: undefined }, text: search });
    for (const tactic of req.terminal_tactics) {
      const lemma = `axle_disprove_${n++}`;
      const text = inDeclScope(file, d, [
        `theorem ${lemma} : ¬ (${stated}) := by`,
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

/** Whether a negation probe proved it (no error, an axioms answer without sorryAx), or why not. */
function proofOf(probe: LeanMessage[] | undefined): { proved: true } | { proved: false; why: string } {
  const errs = (probe ?? []).filter((m) => m.severity === 'error');
  const axioms = (probe ?? [])
    .flatMap((m) => (m.severity === 'info' ? [parseAxioms(m.text)] : []))
    .find((x) => x !== undefined)?.axioms;
  if (probe !== undefined && errs.length === 0 && axioms !== undefined && !axioms.includes('sorryAx'))
    return { proved: true };
  return { proved: false, why: failureReason(probe, errs, axioms) };
}

/** One theorem's result text: the proof (or the failures), with the counter-example report when there is one. */
function resultText(proof: string | undefined, failures: string[], search: SearchOutcome | undefined): string {
  const found = search?.kind === 'counterexample' ? search : undefined;
  if (proof !== undefined)
    return `Disprove: the negation was proved with \`${proof}\`${found ? `; plausible also found a counter-example:\n\n${found.report}` : ''}`;
  if (found)
    return (
      'Disprove: plausible found a counter-example, but no terminal tactic proved the negation ' +
      `(${failures.join('; ') || 'none tried'})\n\n${found.report}`
    );
  return `Disprove: proof of the negation failed (${[...failures, searchSummary(search)].join('; ')})`;
}

/** Reads the attempts in order: the first tactic that proves a negation without sorry disproves the theorem. */
function readAttempts(attempts: readonly Attempt[], r: Elaborated<Attempt>) {
  const negated: Record<string, string> = {};
  const proofs = new Map<string, string>();
  const failures = new Map<string, string[]>();
  const searches = new Map<string, SearchOutcome | undefined>();
  for (const a of attempts) {
    negated[a.name] = a.negated;
    if (r.failure) continue;
    if (!failures.has(a.name)) failures.set(a.name, []);
    const probe = r.probes.get(a);
    if (a.tactic === undefined) {
      searches.set(a.name, readSearch(probe));
      continue;
    }
    if (proofs.has(a.name)) continue;
    const p = proofOf(probe);
    if (p.proved) proofs.set(a.name, a.tactic);
    else failures.get(a.name)!.push(`${a.tactic}: ${p.why}`);
  }
  const results: Record<string, string> = {};
  for (const [name, why] of failures) results[name] = resultText(proofs.get(name), why, searches.get(name));
  return { results, negated, disproved: [...proofs.keys()] };
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
    if (req.terminal_tactics.some((t) => /^\s*plausible\b/.test(t)))
      tool.warnings.push(
        '`plausible` as a terminal tactic cannot prove a negation (it closes a goal only through sorry); ' +
          'the counter-example search already runs plausible on each theorem itself',
      );
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
