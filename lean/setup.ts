/**
 * `npm run lean:setup [-- env-name… | --all] [--dry-run]`: make environments able to run Lean.
 * With no name, the default one (EXAMPLE_ENVIRONMENT, the one the docs' examples use), saying how to
 * choose others: setting up all of them downloads over 10 GB. It prints the plan's total download and
 * disk size first (estimates, lean/setup-plan.ts). For every environment:
 *   1. install its toolchain with elan;
 *   2. build the Lean REPL (leanprover-community/repl) at the tag matching the toolchain,
 *      once per toolchain, under lean/.build/repl-<version>;
 *   3. create its Lake project (a fresh one requiring Mathlib when the header imports it,
 *      or a clone of repo_url at revision/subdir), fetch and build dependencies;
 *   4. record `repl_command` (`lake env <repl binary>`) in config/local.json.
 * Each step says what it runs; a failing step says what is missing and stops that environment.
 * Re-running is cheap and works offline: a step whose result exists (toolchain installed, REPL
 * built, project created, Mathlib oleans present) is skipped. A project whose lean-toolchain
 * differs from the environment's lean_toolchain is refused (the daemon runs the configured
 * toolchain, and oleans built by another one do not load).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { ConfigError, loadConfig, PROJECT_ROOT } from '../src/config.ts';
import { lakeDir, sameToolchain, toolchainTag, type EnvironmentConfig } from '../src/envs/config.ts';
import { elanToolchainDir, readPinnedToolchain } from '../src/envs/probe.ts';
import { discoverToolchain } from '../src/envs/toolchain.ts';
import { comparatorStep } from './comparator-setup.ts';
import { generatedProject, REPL_SOURCE_FILE, replTagFor, tagsOfLsRemote } from './lake-project.ts';
import { ELAN_INSTALL, formatPlan, formatTotal, planTotal } from './setup-plan.ts';
import { EXAMPLE_ENVIRONMENT } from '../src/contract/examples.ts';

/** The REPL's repository (LEAN_TOOL_REPL_GIT: a mirror, or a local clone when offline). */
const REPL_GIT = process.env.LEAN_TOOL_REPL_GIT || 'https://github.com/leanprover-community/repl';
const MATHLIB_GIT = 'https://github.com/leanprover-community/mathlib4';
const BUILD = process.env.LEAN_TOOL_BUILD_DIR ?? path.join(PROJECT_ROOT, 'lean', '.build');

class SetupError extends Error {}

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const named = args.filter((a) => !a.startsWith('--'));
const all = args.includes('--all');

function requireTag(env: EnvironmentConfig): string {
  const tag = toolchainTag(env.lean_toolchain);
  if (!tag)
    throw new SetupError(
      `cannot read a version from lean_toolchain "${env.lean_toolchain}" (expected leanprover/lean4:vX.Y.Z)`,
    );
  return tag;
}

async function run(cmd: string, argv: string[], cwd: string, what: string, hint: string): Promise<string> {
  console.log(`  $ (${path.relative(PROJECT_ROOT, cwd) || '.'}) ${cmd} ${argv.join(' ')}`);
  if (dryRun) return '';
  const r = await execa(cmd, argv, {
    cwd,
    reject: false,
    stdout: 'pipe',
    stderr: 'inherit',
    env: { ...process.env, PATH: `${process.env.PATH}:${path.join(process.env.HOME ?? '', '.elan', 'bin')}` },
  });
  if (r.exitCode !== 0)
    throw new SetupError(
      `${what} failed (exit ${String(r.exitCode)}${r.failed && r.exitCode === undefined ? `: ${r.shortMessage}` : ''}). ${hint}`,
    );
  return String(r.stdout);
}

const OFFLINE_HINT =
  'This step downloads from the internet; run setup on a machine with network access, or install the pieces by hand (see docs/environments.md, "Adding a Lean environment").';

async function buildRepl(env: EnvironmentConfig): Promise<string> {
  const tag = requireTag(env);
  const dir = path.join(BUILD, `repl-${tag}`);
  const bin = path.join(dir, '.lake', 'build', 'bin', 'repl');
  if (existsSync(bin)) {
    console.log(`  REPL ${tag} already built: ${path.relative(PROJECT_ROOT, bin)}`);
    return bin;
  }
  mkdirSync(BUILD, { recursive: true });
  if (!existsSync(dir)) {
    const replTag = await replTagOf(tag);
    await run(
      'git',
      ['clone', '--depth', '1', '--branch', replTag, REPL_GIT, dir],
      BUILD,
      `cloning the REPL at tag ${replTag}${replTag === tag ? '' : ` (the REPL has no tag ${tag})`}`,
      OFFLINE_HINT,
    );
    // Which source serves this toolchain (lean:doctor reports it): v4.32.0's for v4.32.2, say.
    if (!dryRun) writeFileSync(path.join(dir, REPL_SOURCE_FILE), `${replTag}\n`);
  }
  // The clone's own lean-toolchain names its tag's Lean; the REPL must be built by the environment's
  // (a binary links the Lean it was built with), so the patch toolchain replaces it (docs/environments.md).
  if (!dryRun) writeFileSync(path.join(dir, 'lean-toolchain'), `${env.lean_toolchain}\n`);
  await run(
    'lake',
    ['build'],
    dir,
    `building the REPL ${tag}`,
    'Check that the toolchain installed and that the REPL tag supports it.',
  );
  return bin;
}

/** The REPL tag serving toolchain `tag`: the same, or the highest of its minor version (lake-project.ts, `replTagFor`). */
async function replTagOf(tag: string): Promise<string> {
  const listed = await run(
    'git',
    ['ls-remote', '--tags', '--refs', REPL_GIT],
    BUILD,
    'listing the REPL tags',
    OFFLINE_HINT,
  );
  if (dryRun) return tag;
  const chosen = replTagFor(tag, tagsOfLsRemote(listed));
  if (!chosen) throw new SetupError(`the REPL has no tag for Lean ${tag} nor for another release of its minor version`);
  return chosen;
}

/**
 * The REPL's tags for the dry run's plan: the real run's first REPL step, read-only, so the plan
 * names the tag it would clone (a patch release has none of its own: docs/environments.md).
 * Undefined when they cannot be listed (no git, offline): the plan then says so.
 */
async function listReplTags(): Promise<string[] | undefined> {
  const r = await execa('git', ['ls-remote', '--tags', '--refs', REPL_GIT], {
    reject: false,
    timeout: 60_000,
    stdin: 'ignore',
    env: { GIT_TERMINAL_PROMPT: '0' },
  });
  return r.exitCode === 0 ? tagsOfLsRemote(String(r.stdout)) : undefined;
}

async function makeProject(env: EnvironmentConfig): Promise<void> {
  const dir = env.project_dir;
  const root = lakeDir(env);
  if (existsSync(path.join(root, 'lakefile.toml')) || existsSync(path.join(root, 'lakefile.lean'))) {
    console.log(`  Lake project exists: ${root}`);
  } else if (env.repo_url) {
    if (existsSync(dir))
      throw new SetupError(
        `${dir} exists but ${root} has no lakefile; check repo_url/subdir, or remove ${dir} to clone again`,
      );
    await run('git', ['clone', env.repo_url, dir], PROJECT_ROOT, `cloning ${env.repo_url}`, OFFLINE_HINT);
    if (env.revision)
      await run(
        'git',
        ['checkout', env.revision],
        dir,
        `checking out ${env.revision}`,
        'Check that the revision exists.',
      );
  } else {
    const tag = requireTag(env);
    const needsMathlib = /\bimport\s+Mathlib\b/.test(env.imports);
    console.log(`  creating Lake project ${dir}${needsMathlib ? ` requiring Mathlib ${tag}` : ''}`);
    if (!dryRun) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'lean-toolchain'), `${env.lean_toolchain}\n`);
      const files = generatedProject(env.name, env.imports, needsMathlib ? { git: MATHLIB_GIT, rev: tag } : undefined);
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    }
  }
  const projectRoot = lakeDir(env);
  const pinned = dryRun ? undefined : readPinnedToolchain(projectRoot);
  if (pinned !== undefined && !sameToolchain(pinned, env.lean_toolchain)) {
    throw new SetupError(
      `${projectRoot} pins ${pinned} in lean-toolchain but the environment is configured with ${env.lean_toolchain}; ` +
        'the daemon runs the configured toolchain and oleans built by another one do not load: set lean_toolchain to match, or choose a revision built with it',
    );
  }
  const lakefile = dryRun
    ? ''
    : readFileSync(
        path.join(projectRoot, existsSync(path.join(projectRoot, 'lakefile.toml')) ? 'lakefile.toml' : 'lakefile.lean'),
        'utf8',
      );
  if (/mathlib/i.test(lakefile)) {
    if (mathlibBuilt(projectRoot)) console.log('  Mathlib oleans present: skipping `lake exe cache get`');
    // Prebuilt Mathlib oleans: minutes instead of hours.
    else await run('lake', ['exe', 'cache', 'get'], projectRoot, 'fetching the Mathlib cache', OFFLINE_HINT);
  }
  await run('lake', ['build'], projectRoot, `building ${env.name}'s dependencies`, 'See the Lake output above.');
}

/** Mathlib's top olean in the project's package build (Lake's layouts: `.lake/build/lib/lean/` and older `.lake/build/lib/`). */
function mathlibBuilt(projectRoot: string): boolean {
  const build = path.join(projectRoot, '.lake', 'packages', 'mathlib', '.lake', 'build', 'lib');
  return [path.join(build, 'lean', 'Mathlib.olean'), path.join(build, 'Mathlib.olean')].some((f) => existsSync(f));
}

/** Record the REPL command in config/local.json (overlay: the environments array replaces the default one). */
function record(updates: Map<string, string[]>): void {
  const file = process.env.LEAN_TOOL_CONFIG ?? path.join(PROJECT_ROOT, 'config', 'local.json');
  const local = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const base =
    (local.environments as Record<string, unknown>[] | undefined) ??
    (
      JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'config', 'default.json'), 'utf8')) as {
        environments: Record<string, unknown>[];
      }
    ).environments;
  local.environments = base.map((e) =>
    updates.has(String(e.name)) ? { ...e, repl_command: updates.get(String(e.name)) } : e,
  );
  if (dryRun) console.log(`would write ${file}`);
  else writeFileSync(file, `${JSON.stringify(local, null, 2)}\n`);
  console.log(`recorded repl_command for ${[...updates.keys()].join(', ')} in ${path.relative(PROJECT_ROOT, file)}`);
}

async function main(): Promise<number> {
  const config = loadConfig(process.env, PROJECT_ROOT, { overlayMayBeMissing: true });
  const envs = chosen(config.environments);
  if (envs.length === 0) {
    console.error(
      `no environment matches ${named.join(', ') || EXAMPLE_ENVIRONMENT}; configured: ${config.environments.map((e) => e.name).join(', ')}`,
    );
    return 2;
  }
  const tc = discoverToolchain(process.env);
  const planContext = {
    root: PROJECT_ROOT,
    buildDir: BUILD,
    hostEnv: process.env,
    elan: tc.elan,
    replGit: REPL_GIT,
    mathlibGit: MATHLIB_GIT,
  };
  // The plan, printed whole even where elan is absent (lean/setup-plan.ts), with the REPL tags it would clone.
  if (dryRun) {
    const replTags = await listReplTags();
    console.log(formatPlan(envs, replTags ? { ...planContext, replTags } : planContext));
    return 0;
  }
  console.log(`lean:setup: ${envs.map((e) => e.name).join(', ')}; ${formatTotal(planTotal(envs, planContext))}`);
  if (!tc.elan) {
    console.error(
      [
        'lean:setup needs elan (the Lean toolchain manager) and found none on PATH or in ~/.elan/bin.',
        `Install it (https://github.com/leanprover/elan): ${ELAN_INSTALL}`,
        'then run `npm run lean:setup` again (`--dry-run` prints every step with its download first).',
        'Missing: elan; and for each environment its toolchain, the Lean REPL build, and its Lake project:',
        ...envs.map(
          (e) =>
            `  - ${e.name}: ${e.lean_toolchain}, REPL ${safeTag(e)}, ${e.project_dir}, comparator + lean4export ${safeTag(e)} and landrun (config comparator)`,
        ),
      ].join('\n'),
    );
    return 1;
  }
  const updates = new Map<string, string[]>();
  let failed = 0;
  for (const env of envs) {
    console.log(`\n== ${env.name} (${env.lean_toolchain})`);
    try {
      if (existsSync(elanToolchainDir(env.lean_toolchain, process.env)))
        console.log(`  toolchain ${env.lean_toolchain} already installed`);
      else
        await run(
          tc.elan,
          ['toolchain', 'install', env.lean_toolchain],
          PROJECT_ROOT,
          `installing ${env.lean_toolchain}`,
          OFFLINE_HINT,
        );
      const repl = await buildRepl(env);
      await makeProject(env);
      updates.set(env.name, ['lake', 'env', repl]);
      console.log(`  ready: ${env.name}`);
    } catch (e) {
      failed++;
      console.error(`  ${env.name}: ${(e as Error).message}`);
    }
    // The comparator is an optional extra: what it could not build is printed (and the tool answers
    // 503 naming it), but it does not fail the setup of an environment that is otherwise ready.
    await comparatorStep(env, config, PROJECT_ROOT, run, dryRun);
  }
  if (updates.size > 0) record(updates);
  return failed > 0 ? 1 : 0;
}

/**
 * The environments named, all with --all, or else the default one: the only one configured, or
 * EXAMPLE_ENVIRONMENT (said, with how to choose others); none when neither exists (the caller lists them).
 */
function chosen(configured: EnvironmentConfig[]): EnvironmentConfig[] {
  if (all || configured.length === 1) return configured;
  if (named.length > 0) return configured.filter((e) => named.includes(e.name));
  const others = configured.filter((e) => e.name !== EXAMPLE_ENVIRONMENT).map((e) => e.name);
  const picked = configured.filter((e) => e.name === EXAMPLE_ENVIRONMENT);
  if (picked.length > 0)
    console.log(
      `setting up ${EXAMPLE_ENVIRONMENT}, the default environment (the one the docs' examples use); ` +
        `name others (\`npm run lean:setup -- ${others[0] ?? 'NAME'}\`) or pass --all for all ${configured.length}`,
    );
  return picked;
}

function safeTag(e: EnvironmentConfig): string {
  return toolchainTag(e.lean_toolchain) ?? '?';
}

// A configuration mistake is one line naming the setting, as for the daemon (src/main.ts).
process.exitCode = await main().catch((e: unknown) => {
  if (!(e instanceof ConfigError)) throw e;
  console.error(`lean:setup: configuration error: ${e.message}`);
  return 1;
});
