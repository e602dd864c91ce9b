/**
 * comparator: the third-party judge leanprover/comparator on a challenge (formal_statement)
 * and a solution (content). Theorem names (and the sorried definitions, comparator's
 * "definition holes") are read from the formal statement with the source model; the run
 * itself is backend/comparator's. Departure from the spec, documented in docs/tools.md: the
 * hosted service runs only Lean 4.21.0 and ignores `environment`; this daemon runs comparator
 * with the named environment's toolchain (builds pinned per Lean version in config).
 */
import { isVerdict } from '../backend/comparator/output.ts';
import { ComparatorBackend } from '../backend/comparator/runner.ts';
import { SOLUTION_MODULE } from '../backend/comparator/workspace.ts';
import { supportsDefinitionHoles } from '../envs/comparator-config.ts';
import { toolchainTag, type EnvironmentConfig } from '../envs/config.ts';
import { serviceError } from '../errors.ts';
import { parseSource, type SourceDecl } from '../syntax/source.ts';
import { squash } from './decl-verdict.ts';
import { prepareContent } from './elaborate.ts';
import { namedDecls } from './selection.ts';
import type { ToolImpl } from './types.ts';

const isSorried = (text: string, d: SourceDecl) =>
  d.bodySpan !== undefined && /^(by )?sorry$/.test(squash(text.slice(d.bodySpan.start, d.bodySpan.end)));

/** The statement's theorems, and its sorried definitions (README of comparator, "Definition Holes"). */
export function statementTargets(statement: string): { theoremNames: string[]; definitionNames: string[] } {
  const file = parseSource(statement);
  const decls = namedDecls(file);
  return {
    theoremNames: decls.filter((d) => d.kind === 'theorem').map((d) => d.fullName!),
    definitionNames: decls
      .filter((d) => (d.kind === 'def' || d.kind === 'abbrev' || d.kind === 'opaque') && isSorried(file.text, d))
      .map((d) => d.fullName!),
  };
}

/**
 * A challenge with definition holes at a pin without them (comparator v4.28.0, v4.29.0) is refused before
 * anything runs: that comparator would compare the sorried definition with the solution's and answer "not
 * okay" to every solution that fills it, a verdict it cannot give and that must not be cached.
 */
function refuseUnsupportedHoles(env: EnvironmentConfig, definitionNames: readonly string[]): void {
  const tag = toolchainTag(env.lean_toolchain);
  if (definitionNames.length === 0 || tag === undefined || supportsDefinitionHoles(tag)) return;
  // Names are the caller's input: a message repeats at most 100 characters of it (docs/errors.md).
  const all = definitionNames.join(', ');
  const names = all.length > 100 ? `${all.slice(0, 100)}…` : all;
  throw serviceError(
    'invalid_request',
    'definition_holes',
    { names, tag, env: env.name },
    { details: [{ field: 'formal_statement', message: `has definition holes, which comparator ${tag} lacks` }] },
  );
}

export function comparatorTool(backend: ComparatorBackend): ToolImpl<'comparator'> {
  return {
    // The environment's toolchain and project must be there (its availability); the REPL is not used.
    needsLean: () => true,
    // A comparator verdict depends on the builds, not only on the request: cache only verdicts, never a run
    // that failed before the solution was built (a setup failure).
    cacheable: (res) => isVerdict(res.exit_status, res.output, SOLUTION_MODULE),
    async run(req, ctx) {
      const t0 = performance.now();
      const targets = statementTargets(req.formal_statement);
      const extractMs = performance.now() - t0;
      if (targets.theoremNames.length === 0) {
        throw serviceError(
          'invalid_request',
          'no_theorem',
          {},
          { details: [{ field: 'formal_statement', message: 'declares no theorem' }] },
        );
      }
      refuseUnsupportedHoles(ctx.env, targets.definitionNames);
      const located = backend.locate(ctx.env);
      if ('missing' in located)
        throw serviceError('environment_unavailable', 'tool_build_missing', {
          reason: ComparatorBackend.describeMissing(ctx.env, located.missing),
        });
      const challenge = prepareContent(req.formal_statement, ctx.env, req.ignore_imports).content;
      const solution = prepareContent(req.content, ctx.env, req.ignore_imports).content;
      const r = await backend.run(
        {
          env: ctx.env,
          challenge,
          solution,
          ...targets,
          memoryMb: req.memory_limit_mb ?? backend.defaultMemoryMb,
          signal: ctx.signal,
        },
        located.tools,
      );
      return {
        okay: r.okay,
        output: r.output,
        exit_status: r.exitStatus,
        // comparator validates all listed theorems or fails as a whole (Main.lean, `verifyMatch`).
        validated_theorem_names: r.okay ? targets.theoremNames : [],
        timings: {
          total_ms: Math.round(performance.now() - t0),
          extract_theorems_ms: Math.round(extractMs),
          comparator_ms: r.ms,
        },
      };
    },
  };
}
