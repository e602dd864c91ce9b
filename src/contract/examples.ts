/**
 * One example request per tool: shown in the API reference (/docs, "Try it out" sends it) and
 * checked against the tool's schema (test/contract/examples.test.ts), which also fails for a tool
 * that has none here (the type allows a missing one so a new tool type-checks before it gets its example).
 */
import type { ToolName, ToolRequestInput } from './tools.ts';

/** The environment the examples name: the catalogue's recommended one (config/default.json). */
export const EXAMPLE_ENVIRONMENT = 'lean-4.28.0';

const env = EXAMPLE_ENVIRONMENT;
const proof = 'import Mathlib\n\ntheorem add_comm_example (a b : ℕ) : a + b = b + a := by\n  omega\n';
const statement = 'import Mathlib\n\ntheorem add_comm_example (a b : ℕ) : a + b = b + a := by\n  sorry\n';

export const TOOL_EXAMPLES = {
  check: { content: proof, environment: env },
  repair_proofs: {
    content: 'theorem two : 1 + 1 = 2 := by\n  rfl\n  simp\n',
    environment: env,
    repairs: ['remove_extraneous_tactics', 'apply_terminal_tactics'],
  },
  verify_proof: { formal_statement: statement, content: proof, environment: env },
  comparator: { formal_statement: statement, content: proof, environment: env },
  theorem2lemma: { content: proof, environment: env, target: 'lemma' },
  theorem2sorry: { content: proof, environment: env, reparse: false },
  have2sorry: {
    content: 'theorem t (n : ℕ) : n + 0 = n := by\n  have h : n + 0 = n := by simp\n  exact h\n',
    environment: env,
  },
  have2lemma: {
    content: 'theorem t (n : ℕ) : n + 0 = n := by\n  have h : n + 0 = n := by simp\n  exact h\n',
    environment: env,
  },
  sorry2lemma: { content: statement, environment: env },
  extract_decls: { content: proof, environment: env },
  extract_theorems: { content: proof, environment: env },
  simplify_theorems: { content: 'theorem t : 1 = 1 := by\n  skip\n  rfl\n', environment: env },
  merge: {
    documents: ['theorem a : 1 = 1 := rfl\n', 'theorem b : 2 = 2 := rfl\n'],
    environment: env,
  },
  rename: { content: proof, environment: env, declarations: { add_comm_example: 'my_add_comm' } },
  normalize: {
    content: 'namespace Foo\n\ntheorem bar : 1 = 1 := rfl\n\nend Foo\n',
    environment: env,
  },
  disprove: { content: 'theorem bold_claim : 2 = 3 := by\n  sorry\n', environment: env },
} satisfies { [T in ToolName]?: ToolRequestInput<T> };

/** The example of a tool, as a plain object (for OpenAPI and the endpoint metadata). */
export const toolExample = (tool: ToolName): Record<string, unknown> | undefined =>
  (TOOL_EXAMPLES as Partial<Record<string, Record<string, unknown>>>)[tool];
