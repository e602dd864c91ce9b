/**
 * One request and one response schema per tool, exactly as the spec's per-tool
 * sections and its "Parameter support per tool" table state them. This table is the
 * single source of truth: routes, validation, OpenAPI, the client and the CLI all
 * derive from it.
 */
import { z } from 'zod';
import { documentSchema, messageSet, sharedParams, sharedResponse, timings, type SharedParamName } from './common.ts';

export const REPAIRS = [
  'remove_unknown_options',
  'enable_autoImplicit',
  'relax_defeq_transparency',
  'insert_sorries',
  'remove_extraneous_tactics',
  'apply_terminal_tactics',
  'replace_unsafe_tactics',
] as const;
export const SIMPLIFICATIONS = ['remove_unused_tactics', 'remove_unused_haves', 'rename_unused_vars'] as const;
export const NORMALIZATIONS = [
  'remove_sections',
  'remove_opens',
  'expand_decl_names',
  'expand_scoped_notations',
  'remove_duplicates',
  'split_open_in_commands',
  'normalize_module_comments',
  'normalize_doc_comments',
] as const;
export const DEFAULT_NORMALIZATIONS: (typeof NORMALIZATIONS)[number][] = [
  'remove_sections',
  'remove_duplicates',
  'split_open_in_commands',
];

/**
 * Entries of verify_proof's `permitted_sorries` that may be globs (hold `*`): each glob is tried
 * on every name the check asks about, in time linear in the name (src/util/glob.ts), so a
 * request's glob work is at most this many passes over those names (docs/bounds.md). Exact
 * names are looked up, and only limits.names bounds them.
 */
export const MAX_PERMITTED_GLOBS = 100;

/** Spec leaves comparator's memory_limit_mb default "not shown"; docs/http-api.md documents this choice. */
export const DEFAULT_COMPARATOR_MEMORY_MB = 8192;

const enumList = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.array(z.enum(values, { error: `must be one of the ${what}: ${values.join(', ')}` }), {
    error: `must be a list of ${what}`,
  });

const formalStatement = z
  .string({ error: 'is required and must be the sorried statement source' })
  .describe('The sorried statement the proof must satisfy (Lean source).');

const terminalTactics = z
  .array(z.string().min(1), { error: 'must be a list of tactic strings' })
  .default(['grind'])
  .describe('Terminal tactics tried in order; stops at the first success.');

const BASE = {
  content: sharedParams.content,
  environment: sharedParams.environment,
  ignore_imports: sharedParams.ignore_imports,
  timeout_seconds: sharedParams.timeout_seconds,
};

function pick<K extends SharedParamName>(keys: readonly K[]): Pick<typeof sharedParams, K> {
  return Object.fromEntries(keys.map((k) => [k, sharedParams[k]])) as Pick<typeof sharedParams, K>;
}

/** A single-text tool's request: content + environment + the shared params it accepts + its own fields. */
function singleText<K extends SharedParamName, E extends z.ZodRawShape>(accepts: readonly K[], extra: E) {
  return z.strictObject({ ...BASE, ...pick(accepts), ...extra });
}

const includeWholeContext = z
  .boolean()
  .default(true)
  .describe(
    'true: each lemma takes the whole local context; false: the context is minimised by a relevance heuristic.',
  );
const reconstructCallsite = z
  .boolean()
  .default(false)
  .describe('true: the original site is replaced by an application of the new lemma.');

const respond = <E extends z.ZodRawShape>(extra: E) => z.object({ ...sharedResponse, ...extra });
const SELECT = ['names', 'indices'] as const;
const OPTS = ['mathlib_options', 'global_options'] as const;

const verifyNegation = z.object({
  okay: z.boolean(),
  tool_messages: messageSet,
  failed_declarations: z.array(z.string()),
});

/**
 * Lean's messages and sorries as the community REPL reports them [repl v4.28.0: REPL/JSON.lean,
 * `Message`, `Sorry`]: 1-based lines, 0-based code-point columns, on positions of `content`.
 */
const leanPos = z.object({ line: z.number().int(), column: z.number().int() });
const structuredLean = z.object({
  messages: z.array(
    z.object({
      severity: z.enum(['info', 'warning', 'error']),
      pos: leanPos,
      endPos: leanPos.optional(),
      data: z.string(),
    }),
  ),
  sorries: z.array(z.object({ pos: leanPos.optional(), endPos: leanPos.optional(), goal: z.string() })),
});

export interface ToolSpec {
  summary: string;
  request: z.ZodObject;
  response: z.ZodObject;
  deprecated?: boolean;
}

export const TOOLS = {
  check: {
    summary: 'Elaborate Lean source and report its messages (pipeline stage; contract defined by this service).',
    request: singleText(OPTS, {
      structured: z
        .boolean()
        .default(false)
        .describe(
          "Also return Lean's messages and sorries as records with positions (`structured`), as the Lean REPL reports them.",
        ),
    }),
    response: respond({
      okay: z.boolean(),
      failed_declarations: z.array(z.string()),
      structured: structuredLean.optional(),
    }),
  },
  repair_proofs: {
    summary: 'Repair broken theorem proofs with a fixed set of repair passes.',
    request: singleText([...SELECT, 'theorems_only', ...OPTS], {
      repairs: enumList(REPAIRS, 'repairs')
        .default([...REPAIRS])
        .describe('Repairs to apply, in the fixed order of the spec.'),
      terminal_tactics: terminalTactics,
    }),
    response: respond({ repair_stats: z.record(z.string(), z.number().int()), okay: z.boolean() }),
  },
  verify_proof: {
    summary: 'Check that a candidate proof is valid and conforms to a sorried formal statement.',
    request: singleText(['mathlib_options'], {
      formal_statement: formalStatement,
      permitted_sorries: z
        .array(z.string(), { error: 'must be a list of theorem names or glob patterns' })
        .optional()
        .describe(
          `Theorem names (or glob patterns, \`*\` for any run of characters; at most ${MAX_PERMITTED_GLOBS} globs) ` +
            'allowed to contain sorry; their statements are still checked.',
        ),
      use_def_eq: z
        .boolean()
        .default(true)
        .describe('true: compare types after kernel reduction; false: compare at face value (faster).'),
      verify_negation: z
        .boolean()
        .default(false)
        .describe('Also check whether content proves the negation of formal_statement.'),
    }),
    response: respond({
      okay: z.boolean(),
      failed_declarations: z.array(z.string()),
      negation: verifyNegation.optional(),
    }),
  },
  comparator: {
    summary:
      'Slower, more thorough verify_proof running leanprover/comparator, jailed by bubblewrap (comparator runs its own landrun sandbox inside).',
    request: singleText([], {
      formal_statement: formalStatement,
      memory_limit_mb: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(`Container memory limit in MB (default ${DEFAULT_COMPARATOR_MEMORY_MB}).`),
    }),
    response: z.object({
      okay: z.boolean(),
      output: z.string(),
      exit_status: z.number().int(),
      validated_theorem_names: z.array(z.string()),
      timings,
    }),
  },
  theorem2lemma: {
    summary: 'Switch the declaration keyword between theorem and lemma.',
    request: singleText([...SELECT, 'theorems_only', 'reparse', ...OPTS], {
      target: z
        .enum(['lemma', 'theorem'], { error: 'must be "lemma" or "theorem"' })
        .default('lemma')
        .describe('The keyword the selected declarations get: lemma or theorem.'),
    }),
    response: respond({}),
  },
  theorem2sorry: {
    summary: 'Replace theorem proofs with sorry.',
    request: singleText([...SELECT, 'theorems_only', 'reparse', ...OPTS], {}),
    response: respond({}),
  },
  have2sorry: {
    summary: 'Replace the proofs of have statements inside the selected theorems with sorry.',
    request: singleText(SELECT, {}),
    response: respond({}),
  },
  have2lemma: {
    summary: 'Lift have statements out of proofs into standalone lemmas.',
    request: singleText([...SELECT, 'theorems_only', 'verbosity', 'delab_options', 'reparse', ...OPTS], {
      include_have_body: z
        .boolean()
        .default(false)
        .describe('true: the extracted lemma carries the original have proof; false: sorry.'),
      include_whole_context: includeWholeContext,
      reconstruct_callsite: reconstructCallsite,
    }),
    response: respond({ lemma_names: z.array(z.string()) }),
  },
  sorry2lemma: {
    summary: 'Lift sorries and unsolved goals at error locations into standalone lemmas.',
    request: singleText([...SELECT, 'verbosity'], {
      extract_sorries: z.boolean().default(true).describe('Lift sorry placeholders into standalone lemmas.'),
      extract_errors: z
        .boolean()
        .default(true)
        .describe('Lift unsolved goals at error locations into standalone lemmas.'),
      include_whole_context: includeWholeContext,
      reconstruct_callsite: reconstructCallsite,
      merge_duplicates: z
        .boolean()
        .default(false)
        .describe(
          'Merge extracted lemmas with the same statement into one, every call site pointing at it (statements equal as Lean printed them).',
        ),
    }),
    response: respond({ lemma_names: z.array(z.string()) }),
  },
  extract_decls: {
    summary: 'Split a file into one self-contained document per declaration, with analysis fields.',
    request: singleText([...SELECT, 'verbosity', 'delab_options', ...OPTS], {
      elaborate_proofs: z
        .boolean()
        .default(true)
        .describe(
          'false: every theorem proof is replaced by sorry before elaboration (faster; some fields then unusable).',
        ),
    }),
    response: respond({ documents: z.record(z.string(), documentSchema) }),
  },
  extract_theorems: {
    summary: 'Deprecated predecessor of extract_decls (theorems only).',
    deprecated: true,
    request: singleText([...SELECT, 'delab_options', ...OPTS], {}),
    response: respond({ documents: z.record(z.string(), documentSchema) }),
  },
  extract_proof_states: {
    summary:
      'The tactic proof state at the end of each line, as an editor’s goal panel shows it (lines without one omitted).',
    request: singleText(OPTS, {}),
    response: respond({
      proof_states: z
        .array(z.object({ line: z.number().int(), proof_state: z.string() }))
        .describe('{line, proof_state} per line with a tactic proof state, in file order; 1-based lines of content.'),
      truncated: z
        .boolean()
        .describe('True when proof_states reached its 10,000,000-character cap and later lines were omitted.'),
    }),
  },
  simplify_theorems: {
    summary: 'Remove unnecessary tactics and unused haves, clean variable names.',
    request: singleText([...SELECT, 'theorems_only', ...OPTS], {
      simplifications: enumList(SIMPLIFICATIONS, 'simplifications')
        .default([...SIMPLIFICATIONS])
        .describe(`Simplifications to apply: ${SIMPLIFICATIONS.join(', ')}.`),
    }),
    response: respond({ simplification_stats: z.record(z.string(), z.number().int()) }),
  },
  merge: {
    summary: 'Combine several Lean files into one, with deduplication and conflict renaming.',
    request: z.strictObject({
      documents: z
        .array(z.string(), { error: 'is required and must be a list of Lean source texts' })
        .min(1, 'must hold at least one document')
        .describe('The Lean files to merge, each as its source text.'),
      environment: sharedParams.environment,
      use_def_eq: z.boolean().default(true).describe('Use definitional equality to de-duplicate declarations.'),
      include_alts_as_comments: z
        .boolean()
        .default(false)
        .describe('When de-duplicating, keep all versions of a merged declaration as comments.'),
      ignore_imports: sharedParams.ignore_imports,
      timeout_seconds: sharedParams.timeout_seconds,
    }),
    response: respond({}),
  },
  rename: {
    summary: 'Rename declarations and update all references.',
    request: singleText(['reparse', ...OPTS], {
      declarations: z
        .record(z.string().min(1), z.string().min(1, 'new names must not be empty'), {
          error: 'is required and must map old full names to new full names',
        })
        .describe('Old declaration name to new name.'),
    }),
    response: respond({}),
  },
  normalize: {
    summary: 'Standardise file structure before other operations (especially merge).',
    request: singleText([], {
      normalizations: enumList(NORMALIZATIONS, 'normalizations')
        .default([...DEFAULT_NORMALIZATIONS])
        .describe(`Normalizations to apply, from: ${NORMALIZATIONS.join(', ')}.`),
      failsafe: z
        .boolean()
        .default(true)
        .describe('Return the original content unchanged if normalization introduces errors.'),
    }),
    response: respond({ normalize_stats: z.record(z.string(), z.number().int()) }),
  },
  disprove: {
    summary: 'Try to prove the negation of theorems (requires Mathlib).',
    request: singleText([...SELECT, 'theorems_only', 'verbosity', 'delab_options', ...OPTS], {
      terminal_tactics: terminalTactics,
    }),
    response: respond({
      results: z.record(z.string(), z.string()),
      negated: z.record(z.string(), z.string()),
      disproved_theorems: z.array(z.string()),
    }),
  },
} as const satisfies Record<string, ToolSpec>;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];
export const isToolName = (s: string): s is ToolName => Object.hasOwn(TOOLS, s);

export type ToolRequest<T extends ToolName> = z.output<(typeof TOOLS)[T]['request']>;
export type ToolRequestInput<T extends ToolName> = z.input<(typeof TOOLS)[T]['request']>;
export type ToolResponse<T extends ToolName> = z.output<(typeof TOOLS)[T]['response']>;
