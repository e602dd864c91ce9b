/** The shape of one environment in `config/*.json`: the spec's Environment fields plus local ones. */
import path from 'node:path';
import { z } from 'zod';

export const DEFAULT_REPL_COMMAND = ['lake', 'exe', 'repl'];

/** Per-process limits of a REPL (see backend/process/launch.ts); 0 disables one. */
export const processLimits = z.strictObject({
  addressSpaceMb: z.number().int().nonnegative().default(65_536),
  cpuSeconds: z.number().int().nonnegative().default(36_000),
  maxProcesses: z.number().int().nonnegative().default(4096),
  maxOpenFiles: z.number().int().nonnegative().default(4096),
  maxFileSizeMb: z.number().int().nonnegative().default(1024),
  tmpMb: z.number().int().positive().default(2048),
});

export const environmentConfig = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'environment names use letters, digits, ".", "_" and "-"'),
  lean_toolchain: z.string().min(1),
  repo_url: z.string().nullable().default(null),
  revision: z.string().nullable().default(null),
  subdir: z.string().nullable().default(null),
  /** The default import header; requests with ignore_imports true get exactly this header. */
  imports: z.string(),
  description: z.string().default(''),
  /** Local: the Lake project whose dependencies (and REPL) this environment runs in. */
  project_dir: z.string().min(1),
  /** Local: argv of the REPL, run with cwd = project_dir. `lean:setup` records a resolved binary here. */
  repl_command: z.array(z.string().min(1)).min(1).default(DEFAULT_REPL_COMMAND),
  /** Local: overrides `lean.sandbox` for this environment. */
  sandbox: z.enum(['bwrap', 'none']).optional(),
  /** Local: overrides of `lean.limits` for this environment. */
  limits: processLimits.partial().optional(),
});

export type EnvironmentConfig = z.output<typeof environmentConfig>;

/** `leanprover/lean4:v4.28.0` → `v4.28.0`: the tag naming of the REPL and Mathlib releases. */
export function toolchainTag(toolchain: string): string | undefined {
  const m = /:v?(\d+\.\d+\.\d+(?:-rc\d+)?)$/.exec(toolchain);
  return m ? `v${m[1]}` : undefined;
}

/**
 * The Lake project Lean runs in: `project_dir`, or its `subdir` (a repo_url environment whose
 * Lake project sits below the repository root). Resolved here, once, for setup, probe and launch.
 */
export function lakeDir(cfg: Pick<EnvironmentConfig, 'project_dir'> & { subdir?: string | null | undefined }): string {
  return cfg.subdir ? path.resolve(cfg.project_dir, cfg.subdir) : cfg.project_dir;
}

/** The same toolchain, spelt either way (`leanprover/lean4:v4.28.0` and `leanprover/lean4:4.28.0`). */
export function sameToolchain(a: string, b: string): boolean {
  const ta = toolchainTag(a.trim());
  const tb = toolchainTag(b.trim());
  return ta !== undefined && tb !== undefined ? ta === tb : a.trim() === b.trim();
}
