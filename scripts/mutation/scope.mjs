// What `npm run mutate` mutates: the code that decides a verdict, and the tests that guard it.
// One list, read by the Stryker configuration and by the report (docs/mutation.md says why each is here).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `file:from-to`, the lines of the top-level declaration `head` starts (a line beginning with it)
 * up to its closing line (the next line that is `}`, `};` or `});` at column 0): a range that
 * follows the function when lines above it change, where a fixed range would drift.
 */
function declaration(file, head) {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const from = lines.findIndex((l) => l.startsWith(head));
  if (from < 0) throw new Error(`${file}: no line starts with ${JSON.stringify(head)}`);
  const to = lines.findIndex((l, i) => i > from && /^}\)?;?$/.test(l));
  return `${file}:${from + 1}-${to + 1}`;
}

/** Source files (or `file:from-to` line ranges) whose mutants count towards the verdict score. */
export const VERDICT_FILES = [
  // verify_proof's rules: permits, axioms, kinds and types, rule 5 and 7, the defeq probe.
  'src/tools/verify-proof.ts',
  // verify_negation.
  'src/tools/negation.ts',
  // The readers of Lean's answers that verdicts rest on (#print axioms, the goal and message texts).
  'src/tools/lean-texts.ts',
  // disprove's disproved_theorems, and its reading of Plausible's answers.
  'src/tools/disprove.ts',
  'src/tools/plausible.ts',
  // comparator's verdict.
  'src/tools/comparator.ts',
  // The Kimina routes' status mapping: a snippet's answer, its timeout, a Lean failure.
  declaration('src/server/adapters/kimina.ts', 'export function toReplResponse('),
  declaration('src/server/adapters/kimina.ts', 'async function runSnippet('),
  // A declaration's verdict from Lean's answers (errors, sorry, axioms) and the #print axioms reader.
  declaration('src/tools/decl-verdict.ts', 'export function declVerdict('),
  declaration('src/tools/elaboration-answers.ts', 'function readAxioms('),
  // Whether the axiom answers chained to the last unit are trusted (else the content is elaborated again).
  declaration('src/tools/elaboration-answers.ts', 'function chainedAnswersClean('),
  declaration('src/tools/decl-verdict.ts', 'export function checkedType('),
  // repair_proofs' `okay`.
  declaration('src/tools/repair-proofs.ts', 'export const repair_proofs'),
  // Which environment a request is elaborated in: a header served on the own header's processes only when
  // Lean says its added modules are loaded (and answers the known questions as expected).
  'src/backend/loaded-imports.ts',
  declaration('src/backend/session/module-probe.ts', 'export function readModuleProbe('),
  declaration('src/backend/session/module-probe.ts', 'export function addedImports('),
  // Which texts get an answer Lean gave another (one differing only in comments), and where its positions go.
  'src/syntax/comment-free.ts',
  'src/backend/comment-memo.ts',
  // Which job waits for which run, and when a waiting job's deadline counts as Lean's.
  'src/backend/runs-in-flight.ts',
];

/** The test files that exercise those files (the tap runner reruns only those covering a mutant). */
export const VERDICT_TESTS = [
  'test/tools/verify-proof.test.ts',
  // Not verify-proof-parses.test.ts: it counts parses through t.mockImport, which needs tap's own
  // loader (the tap runner runs plain node), and it decides no verdict.
  'test/tools/verify-proof-mutants.test.ts',
  'test/tools/negation.test.ts',
  'test/tools/lean-boundary.test.ts',
  'test/tools/probe-opens.test.ts',
  'test/tools/disprove.test.ts',
  'test/tools/plausible.test.ts',
  'test/tools/probes.test.ts',
  'test/tools/axioms-answers.test.ts',
  'test/tools/chained-axioms.test.ts',
  'test/tools/lean-texts-mutants.test.ts',
  'test/tools/elaborate-mutants.test.ts',
  'test/tools/comparator-recorded.test.ts',
  'test/tools/comparator.test.ts',
  'test/tools/check.test.ts',
  'test/tools/checked-type.test.ts',
  'test/tools/repair-proofs.test.ts',
  'test/tools/repair-proofs-mutants.test.ts',
  'test/recorded/tools.test.ts',
  'test/server/adapters/kimina.test.ts',
  'test/server/adapters/kimina-mutants.test.ts',
  // Written against the survivors of negation.ts, disprove.ts, comparator.ts (docs/mutation.md).
  'test/tools/negation-mutants.test.ts',
  'test/tools/disprove-mutants.test.ts',
  'test/tools/comparator-mutants.test.ts',
  'test/backend/loaded-imports.test.ts',
  'test/backend/module-probe.test.ts',
  'test/syntax/comment-free.test.ts',
  'test/backend/comment-memo.test.ts',
  'test/backend/runs-in-flight.test.ts',
];
