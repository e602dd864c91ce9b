/**
 * The private scratch workspace of one comparator run: a Lake project holding the challenge
 * module (the formal statement), the solution module (the candidate) and comparator's JSON
 * configuration, layed out as comparator's own tests/projects/<name>/ are (Challenge.lean, Solution.lean, config.json at every pinned tag):
 *
 *   lakefile.toml   name + one [[lean_lib]] per module (+ the environment's requirements)
 *   lean-toolchain  the environment's toolchain (elan picks it from the working directory)
 *   Challenge.lean  Solution.lean  config.json
 *
 * config.json has the fields of comparator's `Config` structure [comparator v4.28.0 … v4.33.0: Main.lean,
 * `structure Config … deriving Lean.FromJson`]: challenge_module, solution_module, theorem_names,
 * permitted_axioms and enable_nanoda (a `Bool` with no default, so the derived `FromJson` fails without
 * it and comparator exits before building), plus definition_names (an `Option` with
 * default `none`, from v4.30.0; older tags ignore the key).
 * An environment with dependencies (Mathlib) shares its already built packages: the workspace's
 * `packagesDir` points at the environment project's `.lake/packages` (bound read-only in the
 * jail) and its lake-manifest.json is the environment's, so Lake finds every package at the
 * recorded revision and fetches nothing. Lake joins packagesDir onto the package directory
 * (`FilePath./` concatenates), so the path is relative to where the workspace is when it runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const CHALLENGE_MODULE = 'Challenge';
export const SOLUTION_MODULE = 'Solution';
/** comparator README's example configuration: Lean's three standard axioms. */
export const PERMITTED_AXIOMS = ['propext', 'Quot.sound', 'Classical.choice'];

export interface WorkspaceInput {
  challenge: string;
  solution: string;
  theoremNames: string[];
  /** Sorried definitions of the challenge: comparator's "definition holes" (README, "Definition Holes"). */
  definitionNames: string[];
  /** The environment's toolchain, e.g. leanprover/lean4:v4.28.0. */
  toolchain: string;
  /** The environment's Lake project (its packages and manifest are shared). */
  projectDir: string;
  /** Where the workspace directory is when comparator runs (the jail's workdir, or the host path). */
  runDir: string;
}

interface ManifestPackage {
  type?: string;
  name?: string;
  url?: string;
  rev?: string;
  inputRev?: string | null;
  scope?: string;
  subDir?: string | null;
  dir?: string;
  inherited?: boolean;
}

const toml = (s: string) => JSON.stringify(s); // a TOML basic string has JSON's escapes for these characters

/** The files of the workspace, by relative path. */
export function workspaceFiles(input: WorkspaceInput, manifestText: string | undefined): Record<string, string> {
  const config = {
    challenge_module: CHALLENGE_MODULE,
    solution_module: SOLUTION_MODULE,
    theorem_names: input.theoremNames,
    ...(input.definitionNames.length > 0 ? { definition_names: input.definitionNames } : {}),
    permitted_axioms: PERMITTED_AXIOMS,
    // No second kernel: nanoda is an optional extra check whose binary lean:setup does not build
    // [comparator v4.28.0: README.md, "Checking with Additional Kernels"].
    enable_nanoda: false,
  };
  const lakefile = ['# Scratch workspace of one comparator request (generated).', 'name = "comparator_scratch"'];
  const files: Record<string, string> = {};
  if (manifestText !== undefined) {
    const manifest = JSON.parse(manifestText) as { packagesDir?: string; packages?: ManifestPackage[]; name?: string };
    const shared = path.relative(
      input.runDir,
      path.join(input.projectDir, manifest.packagesDir ?? path.join('.lake', 'packages')),
    );
    lakefile.push(`packagesDir = ${toml(shared)}`);
    for (const p of manifest.packages ?? []) {
      if (p.inherited || !p.name) continue;
      lakefile.push('', '[[require]]', `name = ${toml(p.name)}`);
      if (p.scope) lakefile.push(`scope = ${toml(p.scope)}`);
      if (p.type === 'path' && p.dir) lakefile.push(`path = ${toml(path.resolve(input.projectDir, p.dir))}`);
      else if (p.url) {
        lakefile.push(`git = ${toml(p.url)}`, `rev = ${toml(p.rev ?? p.inputRev ?? '')}`);
        if (p.subDir) lakefile.push(`subDir = ${toml(p.subDir)}`);
      }
    }
    files['lake-manifest.json'] =
      `${JSON.stringify({ ...manifest, name: 'comparator_scratch', packagesDir: shared }, null, 1)}\n`;
  }
  lakefile.push(
    '',
    '[[lean_lib]]',
    `name = ${toml(CHALLENGE_MODULE)}`,
    '',
    '[[lean_lib]]',
    `name = ${toml(SOLUTION_MODULE)}`,
    '',
  );
  files['lakefile.toml'] = lakefile.join('\n');
  files['lean-toolchain'] = `${input.toolchain}\n`;
  files[`${CHALLENGE_MODULE}.lean`] = input.challenge;
  files[`${SOLUTION_MODULE}.lean`] = input.solution;
  files['config.json'] = `${JSON.stringify(config, null, 2)}\n`;
  return files;
}

/** Write the workspace into `dir` (an empty private directory); returns the relative paths written. */
export function writeWorkspace(dir: string, input: WorkspaceInput): string[] {
  const manifest = path.join(input.projectDir, 'lake-manifest.json');
  const files = workspaceFiles(input, existsSync(manifest) ? readFileSync(manifest, 'utf8') : undefined);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  return Object.keys(files);
}
