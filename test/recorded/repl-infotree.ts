/**
 * The REPL's `"infotree": "original"` answer as it is held in a `"infotree": "full"` recording of the same command.
 *
 * The REPL computes every info-tree level from the same command's trees [leanprover-community/repl v4.22.0 …
 * v4.33.0-rc2, the tags with a `full` recording, identical at each: REPL/Main.lean, `runCommand`]: `full` exports them whole, `original` exports
 * `trees.flatMap InfoTree.retainTacticInfo |>.flatMap InfoTree.retainOriginal`. Both are `InfoTree.filter`
 * [REPL/Lean/InfoTree.lean]: a kept `.node` keeps its filtered children, a dropped one is replaced by its children's
 * filtered trees in order, `.hole`s are dropped, `.context` wrappers stay around what they wrapped. So `original`
 * keeps exactly the `TacticInfo` nodes whose syntax's head info is `.original` (`Info.isOriginal`), in the full
 * tree's pre-order, each under the same `.context` ancestors. The export [REPL/Lean/InfoTree/ToJson.lean,
 * `InfoTree.toJson`] prints a `.context` as nothing (it merges into the context its nodes are printed with) and a
 * node as `{kind, node, children}`, where a `TacticInfo`'s `node` depends on the node and that context only
 * (`TacticInfo.toJson`), and its `stx.range.synthetic` is `false` exactly when the head info is `.original`
 * (`Syntax.toRange`, on the same `i.stx` as `isOriginal`). Hence the `original` JSON is the `full` JSON with every
 * node other than a `TacticInfo` with `synthetic: false` replaced by its kept descendants; no tree left, no field
 * (`jsonTrees.isEmpty`: `infotree` is `none`).
 */

interface JsonNode {
  kind?: unknown;
  node?: { stx?: { range?: { synthetic?: unknown } } } | null;
  children?: unknown;
}

const kept = (t: JsonNode) => t.kind === 'TacticInfo' && t.node?.stx?.range?.synthetic === false;

/** The `original` trees held in one exported tree of a `full` answer. */
function retainOriginal(tree: unknown): unknown[] {
  if (!tree || typeof tree !== 'object') return [];
  const t = tree as JsonNode;
  const children = Array.isArray(t.children) ? t.children.flatMap(retainOriginal) : [];
  return kept(t) ? [{ ...t, children }] : children;
}

/** A `full` answer as the `original` answer to the same command (undefined: not a `full` answer's tree list). */
export function originalFromFull(response: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!Array.isArray(response.infotree)) return undefined;
  const trees = response.infotree.flatMap(retainOriginal);
  const out = { ...response };
  if (trees.length > 0) out.infotree = trees;
  else delete out.infotree;
  return out;
}
