/**
 * extract_proof_states [axiom-lean-engine 1023f1f: docs/tools/extract_proof_states.md]: the
 * tactic proof state at the end of each line, `{line, proof_state}` in file order, capped at
 * 10,000,000 characters (`truncated` and a tool warning naming the line past the cap). Lean
 * elaborates the content once with its tactic steps requested (the REPL's info tree of
 * original tactic nodes; src/backend/protocol/infotree.ts); proof-states.ts places them on lines.
 */
import { elaborateContent } from './elaborate.ts';
import { toMessageSet } from './messages.ts';
import { PROOF_STATES_CAP, proofStatesByLine } from './proof-states.ts';
import { responseChars } from './response-bound.ts';
import type { ToolImpl } from './types.ts';
import { emptyMessages } from '../contract/common.ts';
import { pushAll } from '../util/arrays.ts';

export const extract_proof_states: ToolImpl<'extract_proof_states'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const t0 = performance.now();
    const r = await elaborateContent(req.content, req, ctx, { tactics: true });
    const tool = emptyMessages();
    pushAll(tool.errors, r.toolErrors);
    pushAll(tool.warnings, r.toolWarnings);
    const lean = toMessageSet(r.messages);
    // The daemon's response bound can be tighter than AXLE's cap: truncate to it too,
    // rather than answer 413 for a response whose other fields fit.
    const budget =
      ctx.maxResponseChars === undefined
        ? undefined
        : ctx.maxResponseChars - responseChars({ content: r.content, lean, tool }) - 1024;
    const { states, truncatedAt } = proofStatesByLine(r.tactics, r.content, PROOF_STATES_CAP, budget);
    if (truncatedAt !== undefined)
      tool.warnings.push(
        `proof_states reached its cap (${PROOF_STATES_CAP.toLocaleString('en-US')} characters, ` +
          `or the response bound limits.responseFactor sets) at line ${truncatedAt}; the states of line ${truncatedAt} onward are omitted`,
      );
    return {
      proof_states: states,
      truncated: truncatedAt !== undefined,
      content: r.content,
      lean_messages: lean,
      tool_messages: tool,
      timings: {
        parse_ms: Math.round(r.parseMs),
        elaborate_ms: Math.round(r.elaborateMs),
        total_ms: Math.round(performance.now() - t0),
      },
    };
  },
};
