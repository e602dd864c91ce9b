/**
 * lean:setup's comparator step (called from setup.ts once per toolchain): build
 * leanprover/comparator and the lean4export it requires at the commits pinned for the
 * environment's Lean version (config `comparator.pins`), and landrun at `comparator.landrunCommit`.
 *
 *   lean/.build/comparator-<tag>/   git checkout at the pinned commit; lean-toolchain = the environment's;
 *                                   `lake build lean4export comparator` (comparator README "Development" from v4.30.0; lakefile.toml at every pin)
 *   lean/.build/landrun/landrun     `go build -o landrun cmd/landrun/main.go` (landrun README)
 *
 * comparator's lake-manifest.json pins lean4export; the pin in config must be that commit (the export
 * format comparator parses is the one of that lean4export: Main.lean imports Export.Parse from it),
 * and the build is checked against it. Returns what it could not build, so the caller can say so.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../src/config.ts';
import { comparatorPaths } from '../src/envs/comparator-config.ts';
import { toolchainTag, type EnvironmentConfig } from '../src/envs/config.ts';
import { searchDirs, which } from '../src/envs/toolchain.ts';

export type Run = (cmd: string, argv: string[], cwd: string, what: string, hint: string) => Promise<string>;

export interface ComparatorSetupResult {
  built: string[];
  missing: string[];
}

const OFFLINE =
  'This step downloads from the internet; run setup with network access, or build it by hand (README, "comparator").';

async function checkout(run: Run, git: string, dir: string, commit: string, what: string): Promise<void> {
  if (!existsSync(dir)) {
    mkdirSync(path.dirname(dir), { recursive: true });
    await run('git', ['clone', git, dir], path.dirname(dir), `cloning ${what}`, OFFLINE);
  }
  await run(
    'git',
    ['checkout', '--detach', commit],
    dir,
    `checking out ${what} at ${commit}`,
    'Check that the pinned commit exists (config comparator.pins).',
  );
}

/** Build comparator, lean4export and landrun for one environment; never throws for a missing piece. */
export async function setupComparator(
  env: EnvironmentConfig,
  config: Config,
  root: string,
  run: Run,
  dryRun: boolean,
): Promise<ComparatorSetupResult> {
  const out: ComparatorSetupResult = { built: [], missing: [] };
  const tag = toolchainTag(env.lean_toolchain);
  const c = config.comparator;
  const pin = tag ? c.pins[tag] : undefined;
  if (!tag || !pin) {
    out.missing.push(
      `comparator for ${env.lean_toolchain}: no pin in config comparator.pins (pinned: ${Object.keys(c.pins).join(', ') || 'none'}); add the comparator release tag's commit and the lean4export commit of its lake-manifest.json`,
    );
    return out;
  }
  const p = comparatorPaths(root, c, tag);
  try {
    if (existsSync(p.comparator) && existsSync(p.lean4export)) {
      console.log(`  comparator ${tag} already built: ${path.relative(root, p.comparator)}`);
    } else {
      await checkout(run, c.comparatorGit, p.checkout, pin.comparator, `comparator ${tag}`);
      if (!dryRun) {
        const theirs = readFileSync(path.join(p.checkout, 'lean-toolchain'), 'utf8').trim();
        if (theirs !== env.lean_toolchain) {
          console.log(
            `  note: comparator ${pin.comparator.slice(0, 8)} declares ${theirs}; building it with ${env.lean_toolchain}`,
          );
          writeFileSync(path.join(p.checkout, 'lean-toolchain'), `${env.lean_toolchain}\n`);
        }
        const manifest = JSON.parse(readFileSync(path.join(p.checkout, 'lake-manifest.json'), 'utf8')) as {
          packages: { name: string; rev: string }[];
        };
        const rev = manifest.packages.find((x) => x.name === 'lean4export')?.rev;
        if (rev !== pin.lean4export)
          throw new Error(
            `comparator ${pin.comparator} requires lean4export ${rev ?? '(none)'}, but config pins ${pin.lean4export}; fix comparator.pins.${tag}`,
          );
      }
      await run(
        'lake',
        ['build', 'lean4export', 'comparator'],
        p.checkout,
        `building comparator and lean4export ${tag}`,
        'See the Lake output above.',
      );
      if (!dryRun) {
        const head = (
          await run(
            'git',
            ['rev-parse', 'HEAD'],
            path.join(p.checkout, '.lake', 'packages', 'lean4export'),
            'reading the lean4export commit',
            '',
          )
        ).trim();
        if (head !== pin.lean4export)
          throw new Error(`lean4export was checked out at ${head}, not the pinned ${pin.lean4export}`);
      }
    }
    out.built.push(`comparator and lean4export ${tag}`);
  } catch (e) {
    out.missing.push(`comparator/lean4export ${tag}: ${(e as Error).message}`);
  }
  if (c.landrun === 'shim') {
    out.built.push(
      `landrun: using comparator's scripts/fake-landrun.sh (config comparator.landrun = "shim"): the bubblewrap jail is the only sandbox`,
    );
    return out;
  }
  if (existsSync(p.landrun)) return out;
  const go = which('go', searchDirs(process.env));
  if (!go) {
    out.missing.push(
      `landrun: Go is not installed (landrun is a Go program; install Go ≥ 1.24, or set comparator.landrun to "shim")`,
    );
    return out;
  }
  try {
    await checkout(run, c.landrunGit, p.landrunDir, c.landrunCommit, 'landrun');
    await run(
      go,
      ['build', '-o', 'landrun', 'cmd/landrun/main.go'],
      p.landrunDir,
      'building landrun',
      'See the Go output above.',
    );
    out.built.push('landrun');
  } catch (e) {
    out.missing.push(`landrun: ${(e as Error).message}`);
  }
  return out;
}

/** setup.ts's hook: run the step, say what was built and what was not; 1 when something is missing. */
export async function comparatorStep(
  env: EnvironmentConfig,
  config: Config,
  root: string,
  run: Run,
  dryRun: boolean,
): Promise<number> {
  const r = await setupComparator(env, config, root, run, dryRun);
  for (const b of r.built) console.log(`  comparator: built ${b}`);
  for (const m of r.missing) console.error(`  comparator: could not build ${m}`);
  if (r.missing.length > 0)
    console.error(
      `  ${env.name}: the comparator tool stays unavailable (it answers 503 naming what is missing); the other tools are unaffected`,
    );
  return r.missing.length > 0 ? 1 : 0;
}
