/**
 * check: elaborate the content and report Lean's messages. `okay` means it compiles;
 * declarations that fail to compile, use `sorry`, non-standard axioms or are `unsafe` are listed
 * in failed_declarations, the last three as tool warnings (verify_proof makes them errors).
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { elaborateContent, type Elaborated } from './elaborate.ts';
import { declVerdict } from './decl-verdict.ts';
import type { ToolResponse } from '../contract/tools.ts';
import { declName, namedDecls } from './selection.ts';
import type { ToolImpl } from './types.ts';

/** Messages in Lean's order and sorries in the content's, with their positions (`structured: true`). */
function structuredLean(r: Elaborated): NonNullable<ToolResponse<'check'>['structured']> {
  return {
    messages: r.messages.map((m) => ({
      severity: m.severity,
      pos: m.pos,
      ...(m.endPos ? { endPos: m.endPos } : {}),
      data: m.text,
    })),
    sorries: r.commands.flatMap((c) =>
      c.sorries.map((x) => ({
        ...(x.pos ? { pos: x.pos } : {}),
        ...(x.endPos ? { endPos: x.endPos } : {}),
        goal: x.goal,
      })),
    ),
  };
}

export const check: ToolImpl<'check'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const t0 = performance.now();
    const r = await elaborateContent(req.content, req, ctx, {
      // Instances and examples have no name to ask about; the rest are checked for sorryAx and foreign axioms.
      axiomsOf: namedDecls,
    });
    const tool = emptyMessages();
    for (const e of r.toolErrors) tool.errors.push(e);
    for (const w of r.toolWarnings) tool.warnings.push(w);
    const failed = r.failure ? undefined : failedDeclarations(r, tool.warnings);
    const lean = toMessageSet(r.messages);
    // One literal for the common answer; `structured` (asked for) comes first, as the response's members are ordered.
    const res = {
      okay: !r.failure && lean.errors.length === 0 && r.toolErrors.length === 0,
      content: r.content,
      lean_messages: lean,
      tool_messages: tool,
      failed_declarations: failed ? [...failed] : [],
      timings: {
        parse_ms: Math.round(r.parseMs),
        elaborate_ms: Math.round(r.elaborateMs),
        total_ms: Math.round(performance.now() - t0),
      },
    };
    return req.structured ? { structured: structuredLean(r), ...res } : res;
  },
};

/**
 * The declarations that fail (errors, `sorry`, no axioms answer, foreign axioms), each once in file
 * order, with the warnings that say why; undefined when none does (the set is made for the first).
 */
function failedDeclarations(r: Elaborated, warnings: string[]): Set<string> | undefined {
  let failed: Set<string> | undefined;
  for (const d of r.file.decls) {
    const name = declName(d, r.file);
    const v = declVerdict(r, d);
    if (v.hasErrors) (failed ??= new Set()).add(name);
    // AXLE v1.4.0 (docs/tools/check.md): unsafe definitions are a validation finding like sorry, a
    // warning that leaves `okay` alone; `partial` is not (verify_proof permits it since v1.3.0).
    if (d.modifiers.words.includes('unsafe')) {
      (failed ??= new Set()).add(name);
      warnings.push(`Unsafe function '${name}' detected`);
    }
    if (v.usesSorry) {
      (failed ??= new Set()).add(name);
      warnings.push(`Declaration '${name}' uses 'sorry'`);
    }
    if (v.axiomsUnanswered) {
      (failed ??= new Set()).add(name);
      warnings.push(`Declaration '${name}': Lean did not say which axioms it uses (${v.axiomsUnanswered})`);
    }
    for (const a of v.foreignAxioms) {
      (failed ??= new Set()).add(name);
      warnings.push(`In '${name}': axiom '${a}' is not in the allowed set of standard axioms`);
    }
  }
  return failed;
}
