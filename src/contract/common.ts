/**
 * Building blocks shared by every tool's request and response schema: the spec's
 * "Shared request parameters" table and "Resources and their fields".
 */
import { z } from 'zod';
import { TIMINGS_EXAMPLE } from './response-examples.ts';

/** Upper bound accepted on the wire; admission caps non-admin deadlines at 900 s. */
export const MAX_TIMEOUT_SECONDS_WIRE = 86_400;
export const DEFAULT_TIMEOUT_SECONDS = 120;

/** A Lean option name: dotted identifier such as `maxHeartbeats` or `linter.unusedVariables`. */
const optionName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/,
    'must be a Lean option name such as maxHeartbeats or pp.all',
  );
const optionValue = z.union([z.boolean(), z.number().int(), z.string()], {
  error: 'must be a boolean, an integer or a string',
});

/** Every shared parameter, with the spec's type, range and default. Tools pick the ones they accept. */
export const sharedParams = {
  content: z
    .string({ error: 'is required and must be a string of Lean source' })
    .describe(
      "The Lean source to process, as the text of a .lean file (imports included; with ignore_imports true they are replaced by the environment's header).",
    ),
  environment: z
    .string({ error: 'is required and must be an environment name' })
    .min(1, 'must not be empty')
    .describe(
      'The Lean environment (Lean version and libraries) to use, such as lean-4.28.0; GET /v1/environments lists them with their availability.',
    ),
  names: z
    .array(z.string(), { error: 'must be a list of declaration names' })
    .optional()
    .describe(
      'Declarations to process (default: all theorems). Exact full name first, then best-effort short-name resolution.',
    ),
  indices: z
    .array(z.number().int('must be integers'), { error: 'must be a list of integers' })
    .optional()
    .describe('0-based indices of declarations to process; negative values count from the end.'),
  theorems_only: z
    .boolean()
    .default(true)
    .describe('When false, process every declaration kind and select over all of them.'),
  reparse: z
    .boolean()
    .default(true)
    .describe('When false, the output is not re-elaborated and lean_messages is empty.'),
  mathlib_options: z
    .boolean()
    .default(false)
    .describe('Mathlib standard linter set, autoImplicit off, and #lint findings.'),
  global_options: z
    .record(optionName, optionValue)
    .optional()
    .describe('Lean option overrides applied to everything elaborated.'),
  delab_options: z
    .record(z.string().regex(/^pp\./, 'keys must be pretty-printer options (pp.*)'), optionValue)
    .optional()
    .describe('Pretty-printer overrides (pp.* only), applied on top of the verbosity preset.'),
  // A number, as the spec and AXLE say (fractions allowed); the preset is the integer part.
  verbosity: z
    .number({ error: 'must be a number from 0 to 2' })
    .min(0, 'must be a number from 0 to 2')
    .max(2, 'must be a number from 0 to 2')
    .default(0)
    .describe(
      'Pretty-printer preset, a number from 0 to 2 (its integer part selects the preset): 0 standard, 1 robust, 2 extra robust.',
    ),
  ignore_imports: z
    .boolean()
    .default(true)
    .describe("true: replace the content's imports with the environment's header."),
  timeout_seconds: z
    .number()
    .positive()
    .max(MAX_TIMEOUT_SECONDS_WIRE)
    .default(DEFAULT_TIMEOUT_SECONDS)
    .describe('Processing deadline in seconds (queue time excluded); capped at 900 s for non-admin keys.'),
} as const;

export type SharedParamName = keyof typeof sharedParams;

export const messageSet = z.object({
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
  infos: z.array(z.string()),
});
export type MessageSet = z.infer<typeof messageSet>;

export const emptyMessages = (): MessageSet => ({ errors: [], warnings: [], infos: [] });

// The example: a real answer's (not the "additionalProp1" a generator makes of a record).
export const timings = z.record(z.string(), z.number().int().nonnegative()).meta({ example: TIMINGS_EXAMPLE });
export type Timings = z.infer<typeof timings>;

/** Fields most tools return (spec: "Shared response fields"). */
export const sharedResponse = {
  lean_messages: messageSet,
  tool_messages: messageSet,
  content: z.string(),
  timings,
} as const;

/**
 * The provenance in `info` of every tool response (AXLE v1.3.0's `_executor_*` fields; what each
 * holds here: src/envs/provenance.ts). A cache hit answers the same fields as the miss.
 */
export const executorInfo = {
  _executor_commit_sha: z.string().nullable().describe("The daemon's git commit (null when unknown)."),
  _executor_docker_image_id: z
    .string()
    .nullable()
    .describe('The container image, when the deployment sets LEAN_TOOL_DOCKER_IMAGE_ID (else null).'),
  _executor_artifact_sha256: z
    .string()
    .nullable()
    .describe("AXLE's build artifact digest: the daemon has none (null)."),
  _executor_lean_toolchain: z.string().describe("The environment's lean_toolchain (as GET /v1/environments)."),
  _executor_revision: z.string().nullable().describe("The environment's revision (its Mathlib or project revision)."),
} as const;

/** `info` of every tool response (AXLE's newer API): the request's own id, for logs and shared links, and the provenance. */
export const responseInfo = z.object({
  ...executorInfo,
  request_id: z
    .uuid()
    .describe("This request's id (a fresh UUID each time, cache hits included); see POST /v1/shared-links."),
});

export const environmentInfo = z.object({
  name: z.string(),
  lean_toolchain: z.string(),
  repo_url: z.string().nullable(),
  revision: z.string().nullable(),
  subdir: z.string().nullable(),
  imports: z.string(),
  description: z.string(),
  available: z.boolean().describe('Whether tools that need Lean can run on this environment now.'),
  unavailable_reason: z.string().optional().describe('Why not, when available is false.'),
});
export type EnvironmentInfo = z.infer<typeof environmentInfo>;

export const documentSchema = z.object({
  kind: z.enum([
    'theorem',
    'def',
    'abbrev',
    'axiom',
    'opaque',
    'structure',
    'class',
    'class inductive',
    'inductive',
    'instance',
    'example',
    'unknown',
  ]),
  declaration: z.string(),
  content: z.string(),
  tokens: z.array(z.string()),
  signature: z.string(),
  type: z.string(),
  type_hash: z.number().int().nullable(),
  unfolded_type_hash: z.number().int().nullable(),
  type_depth: z.number().int().min(0).max(255),
  term_depth: z.number().int().min(0).max(255),
  is_sorry: z.boolean(),
  index: z.number().int(),
  line_pos: z.number().int(),
  end_line_pos: z.number().int(),
  proof_length: z.number().int(),
  tactic_counts: z.record(z.string(), z.number().int()),
  wall_ms: z.number().int(),
  heartbeats: z.number().int(),
  local_type_dependencies: z.array(z.string()),
  local_value_dependencies: z.array(z.string()),
  external_type_dependencies: z.array(z.string()),
  external_value_dependencies: z.array(z.string()),
  local_syntactic_dependencies: z.array(z.string()),
  external_syntactic_dependencies: z.array(z.string()),
  declaration_messages: messageSet,
  theorem_messages: messageSet,
});

export const errorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});
