/** The built-in tool implementations. A tool absent here answers 501 not_implemented. */
import type { ComparatorBackend } from '../backend/comparator/runner.ts';
import { check } from './check.ts';
import { comparatorTool } from './comparator.ts';
import { disprove } from './disprove.ts';
import { extract_decls, extract_theorems } from './extract-decls.ts';
import { extract_proof_states } from './extract-proof-states.ts';
import { have2lemma } from './have2lemma.ts';
import { have2sorry } from './have2sorry.ts';
import { merge } from './merge.ts';
import { withNegation } from './negation.ts';
import { normalize } from './normalize.ts';
import { rename } from './rename.ts';
import { repair_proofs } from './repair-proofs.ts';
import { simplify_theorems } from './simplify-theorems.ts';
import { sorry2lemma } from './sorry2lemma.ts';
import { theorem2lemma } from './theorem2lemma.ts';
import { theorem2sorry } from './theorem2sorry.ts';
import type { ToolTable } from './types.ts';
import { verify_proof } from './verify-proof.ts';

/** `comparator` needs its builds (located by the backend built from config); without one it answers 501. */
export function builtinTools(deps: { comparator?: ComparatorBackend } = {}): ToolTable {
  return {
    ...(deps.comparator ? { comparator: comparatorTool(deps.comparator) } : {}),
    check,
    verify_proof: withNegation(verify_proof),
    theorem2lemma,
    theorem2sorry,
    have2sorry,
    have2lemma,
    sorry2lemma,
    rename,
    normalize,
    merge,
    repair_proofs,
    simplify_theorems,
    disprove,
    extract_decls,
    extract_theorems,
    extract_proof_states,
  };
}
