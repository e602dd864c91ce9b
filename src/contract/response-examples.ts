/**
 * Response examples for the API reference (/docs): answers the daemon really gave, so the page shows
 * what a caller gets rather than samples generated from the schemas ("additionalProp1", "string").
 * test/contract/response-examples.test.ts sends the requests again and compares (request ids and
 * times aside), so an example that stops being real fails there.
 *
 * A tool whose example request needs Lean has no 200 example: no Lean result is invented.
 */
import { EXAMPLE_ENVIRONMENT, TOOL_EXAMPLES } from './examples.ts';
import type { ToolName } from './tools.ts';

/** `timings` as the theorem2sorry example answered it (every tool reports parse_ms and total_ms). */
export const TIMINGS_EXAMPLE = { parse_ms: 35, total_ms: 117 };

/** The answer to TOOL_EXAMPLES[tool], for the tools that answer it without Lean. */
export const RESPONSE_EXAMPLES: Partial<Record<ToolName, Record<string, unknown>>> = {
  theorem2sorry: {
    content: 'import Mathlib\n\ntheorem add_comm_example (a b : ℕ) : a + b = b + a := sorry\n',
    lean_messages: { errors: [], warnings: [], infos: [] },
    tool_messages: { errors: [], warnings: [], infos: [] },
    timings: TIMINGS_EXAMPLE,
    info: {
      _executor_commit_sha: '063e15e68cc689ad310f3b5f904bc5693d4ccd5a',
      _executor_docker_image_id: null,
      _executor_artifact_sha256: null,
      _executor_lean_toolchain: 'leanprover/lean4:v4.28.0',
      _executor_revision: null,
      request_id: '4483ca44-68ae-41e4-9994-1dfe93d6b523',
    },
  },
};

/** Error answers by status: what a first request most often meets. */
export const ERROR_EXAMPLES: Record<
  number,
  { request: { tool: ToolName; body: Record<string, unknown> }; body: unknown }
> = {
  // The check example without its content.
  400: {
    request: { tool: 'check', body: { environment: EXAMPLE_ENVIRONMENT } },
    body: {
      error: {
        code: 'invalid_request',
        message: 'invalid request for check: content: is required and must be a string of Lean source',
        details: [{ field: 'content', message: 'is required and must be a string of Lean source' }],
      },
    },
  },
  // The check example on a machine without a Lean toolchain (the default configuration).
  409: {
    request: { tool: 'check', body: TOOL_EXAMPLES.check },
    body: {
      error: {
        code: 'environment_unavailable',
        message:
          'environment lean-4.28.0 cannot run Lean: no Lean toolchain found: neither lake nor elan is on PATH or in ~/.elan/bin; ' +
          'install elan, then run `npm run lean:setup -- lean-4.28.0` (`--dry-run` first prints each step; see docs/environments.md). ' +
          "GET /v1/environments shows each environment's availability.",
      },
    },
  },
};
