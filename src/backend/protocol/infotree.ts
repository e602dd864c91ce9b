/**
 * The tactic steps of a REPL info tree: each tactic node's source range and the goals before
 * and after it, pretty-printed by Lean. The REPL exports an info tree on request
 * (`"infotree": "original"`: tactic nodes with original syntax only; the same at every supported tag,
 * v4.21.0 … v4.33.0-rc2 [repl v4.28.0:
 * REPL/Main.lean, `jsonTrees` (`retainTacticInfo`, `retainOriginal`)]) as nested
 * `{kind, node, children}` objects; a tactic node is `kind: "TacticInfo"` with
 * `node: {stx: {range: {synthetic, start, finish}}, goalsBefore, goalsAfter}` [repl v4.28.0:
 * REPL/Lean/InfoTree/ToJson.lean, `InfoTreeNode`, `TacticInfo.Json`, `Syntax.Range`; positions
 * are `Lean.Position`: 1-based line, 0-based code-point column].
 */
import { z } from 'zod';
import type { ReplPos } from './schema.ts';

export interface TacticStep {
  pos: ReplPos;
  endPos: ReplPos;
  goalsBefore: string[];
  goalsAfter: string[];
}

const position = z.object({ line: z.number().int(), column: z.number().int() });
const tacticNode = z.object({
  stx: z.object({ range: z.object({ synthetic: z.boolean(), start: position, finish: position }) }),
  goalsBefore: z.array(z.string()),
  goalsAfter: z.array(z.string()),
});

/**
 * Every tactic node with an original (written) range, in the tree's pre-order. Anything else
 * (terms, commands, holes, nodes of another shape) is skipped, not an error: the tree's other
 * kinds vary by REPL version and request level. Walked with an explicit stack: its depth is
 * the source's nesting, not ours to bound by the call stack.
 */
export function tacticSteps(infotree: unknown): TacticStep[] {
  const out: TacticStep[] = [];
  const stack: unknown[] = Array.isArray(infotree) ? [...infotree].reverse() : [infotree];
  while (stack.length > 0) {
    const t = stack.pop();
    if (!t || typeof t !== 'object') continue;
    const { kind, node, children } = t as { kind?: unknown; node?: unknown; children?: unknown };
    if (kind === 'TacticInfo') {
      const n = tacticNode.safeParse(node);
      if (n.success && !n.data.stx.range.synthetic)
        out.push({
          pos: n.data.stx.range.start,
          endPos: n.data.stx.range.finish,
          goalsBefore: n.data.goalsBefore,
          goalsAfter: n.data.goalsAfter,
        });
    }
    if (Array.isArray(children)) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}
