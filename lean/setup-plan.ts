/**
 * `npm run lean:setup -- [NAME…] --dry-run`: every step setup would take for each environment,
 * with the command, where it runs, and what it downloads, printed without running anything and
 * without needing elan (a machine without elan is exactly where one wants to read the plan first).
 * Steps already done on this machine are marked so. The steps mirror lean/setup.ts.
 *
 * Download sizes are estimates, best effort, and said as such (`~`): they vary by version and
 * nothing here can measure them without downloading. Sources beside each figure.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { lakeDir, toolchainTag, type EnvironmentConfig } from '../src/envs/config.ts';
import { elanToolchainDir } from '../src/envs/probe.ts';
import { REPL_SOURCE_FILE, replTagFor } from './lake-project.ts';

/** elan's documented installer (github.com/leanprover/elan README), installing no default toolchain: setup installs each environment's. */
export const ELAN_INSTALL = 'curl https://elan.lean-lang.org/elan-init.sh -sSf | sh -s -- -y --default-toolchain none';

/** Best-effort download estimates (not measured here; they vary by version). */
export const DOWNLOADS = {
  elan: '~10 MB (the elan binary)',
  // A Lean release archive for Linux x86_64 (leanprover/lean4 release assets); an estimate.
  toolchain: '~200-400 MB compressed, ~1-2 GB installed (estimate; see the release assets of leanprover/lean4)',
  repl: '< 1 MB (a shallow clone of leanprover-community/repl at one tag)',
  // The Lean Zulip, mathlib4 stream, "Download mathlib4 once and link multiple projects against it" (Feb 2026): "all 700MB of mathlib cache".
  mathlibCache:
    '~700 MB of prebuilt Mathlib .olean archives (as reported on the Lean Zulip, Feb 2026), several GB unpacked',
  mathlibSource: '~0.5-1 GB (Lake clones mathlib4 and its dependencies: batteries, aesop, plausible, …; estimate)',
  repo: 'the repository clone (size depends on the project)',
} as const;

/** Megabytes, as a best-effort range [low, high]: what a step downloads and what it leaves on disk. */
export interface Size {
  download: readonly [number, number];
  disk: readonly [number, number];
}

/**
 * The same estimates as numbers, for the plan's total (sources as in DOWNLOADS; the disk figures of
 * the REPL build and the unpacked Mathlib oleans are estimates of ours, said so in the total).
 */
export const SIZES = {
  elan: { download: [10, 10], disk: [10, 20] },
  toolchain: { download: [200, 400], disk: [1000, 2000] },
  repl: { download: [1, 1], disk: [20, 100] },
  mathlibSource: { download: [500, 1000], disk: [500, 1000] },
  mathlibCache: { download: [700, 700], disk: [3000, 6000] },
} as const satisfies Record<string, Size>;

export interface PlanStep {
  title: string;
  /** What it downloads and leaves on disk (estimates), when it downloads anything measurable. */
  size?: Size;
  /** The command, as setup runs it. */
  command?: string;
  /** Where it runs (relative to the project root when inside it). */
  cwd?: string;
  download?: string;
  /** Set when this machine already has the result: setup skips the step. */
  done?: string;
}

export interface PlanContext {
  root: string;
  buildDir: string;
  hostEnv: NodeJS.ProcessEnv;
  /** The elan binary found, if any. */
  elan: string | undefined;
  replGit: string;
  /** The REPL's tags, when listed: the plan then names the tag it clones. */
  replTags?: readonly string[];
  mathlibGit: string;
}

const needsMathlib = (env: EnvironmentConfig) => /\bimport\s+Mathlib\b/.test(env.imports);

function toolchainStep(env: EnvironmentConfig, c: PlanContext): PlanStep {
  const installed = existsSync(elanToolchainDir(env.lean_toolchain, c.hostEnv));
  return {
    title: `install the Lean toolchain ${env.lean_toolchain}`,
    command: `${c.elan ?? 'elan'} toolchain install ${env.lean_toolchain}`,
    download: DOWNLOADS.toolchain,
    size: SIZES.toolchain,
    ...(installed ? { done: 'already installed' } : {}),
  };
}

/** `v4.32.2` → `v4.32` (a tag's minor version, as replTagFor matches it). */
const minorOf = (tag: string): string => /^v?\d+\.\d+/.exec(tag)?.[0] ?? tag;

function replSteps(env: EnvironmentConfig, c: PlanContext): PlanStep[] {
  const tag = toolchainTag(env.lean_toolchain) ?? '?';
  const dir = path.join(c.buildDir, `repl-${tag}`);
  const built = existsSync(path.join(dir, '.lake', 'build', 'bin', 'repl'));
  const done = built ? { done: 'already built' } : {};
  // Known when the tags were listed (a real run lists them first; the dry run lists them too, when it can).
  const source = c.replTags ? replTagFor(tag, c.replTags) : undefined;
  const list: PlanStep = {
    title: `list the REPL's tags, to build the one serving ${tag} (the same tag, or the highest of its minor version: lean/lake-project.ts replTagFor)`,
    command: `git ls-remote --tags --refs ${c.replGit}`,
    cwd: c.buildDir,
    ...done,
  };
  // Listed, and none serves this toolchain: the real run stops here for this environment (setup.ts replTagOf).
  if (c.replTags && !source)
    return [list, { title: `none serves ${tag} (no tag of its minor version before it): setup stops here`, ...done }];
  // Not listed (offline): the clone names the rule, never a tag that may not exist.
  const branch = source ?? `<${tag}, else the highest ${minorOf(tag)}.x tag before it>`;
  const pin =
    source === tag
      ? []
      : [
          {
            title: `pin the clone's lean-toolchain to ${env.lean_toolchain}${source ? ` (the REPL has no tag ${tag}: its ${source} source is built by the ${tag} toolchain, docs/environments.md "Patch releases")` : ' (when the REPL has no tag ' + tag + ')'}, and record the source tag in ${REPL_SOURCE_FILE}`,
            cwd: dir,
            ...done,
          },
        ];
  return [
    list,
    {
      title: `clone the Lean REPL at ${source ? `tag ${source}` : `the tag listed (${tag} when it exists)`}`,
      command: `git clone --depth 1 --branch ${branch} ${c.replGit} ${dir}`,
      cwd: c.buildDir,
      download: DOWNLOADS.repl,
      size: SIZES.repl,
      ...done,
    },
    ...pin,
    { title: `build the REPL for ${tag}`, command: 'lake build', cwd: dir, ...done },
  ];
}

function projectSteps(env: EnvironmentConfig, c: PlanContext): PlanStep[] {
  const root = lakeDir(env);
  const exists = ['lakefile.toml', 'lakefile.lean'].some((f) => existsSync(path.join(root, f)));
  const done = exists ? { done: `Lake project exists: ${root}` } : {};
  if (env.repo_url) {
    const steps: PlanStep[] = [
      {
        title: `clone ${env.repo_url}`,
        command: `git clone ${env.repo_url} ${env.project_dir}`,
        download: DOWNLOADS.repo,
        ...done,
      },
    ];
    if (env.revision)
      steps.push({
        title: `check out ${env.revision}`,
        command: `git checkout ${env.revision}`,
        cwd: env.project_dir,
        ...done,
      });
    return steps;
  }
  const tag = toolchainTag(env.lean_toolchain) ?? '?';
  return [
    {
      title: `create the Lake project ${env.project_dir}: lean-toolchain ${env.lean_toolchain}, a library of the environment's header${needsMathlib(env) ? `, requiring Mathlib ${tag} (${c.mathlibGit})` : ''} (lean/lake-project.ts generatedProject)`,
      ...done,
    },
  ];
}

function buildSteps(env: EnvironmentConfig): PlanStep[] {
  const root = lakeDir(env);
  const steps: PlanStep[] = [];
  if (needsMathlib(env))
    steps.push({
      title: `fetch the prebuilt Mathlib oleans${env.repo_url ? " (when the project's lakefile requires Mathlib)" : ''}`,
      command: 'lake exe cache get',
      cwd: root,
      download: `${DOWNLOADS.mathlibSource}, then ${DOWNLOADS.mathlibCache}`,
      size: addSizes([SIZES.mathlibSource, SIZES.mathlibCache]),
    });
  steps.push({ title: `build ${env.name}'s dependencies`, command: 'lake build', cwd: root });
  return steps;
}

/** Every step of one environment, in order. */
export function environmentPlan(env: EnvironmentConfig, c: PlanContext): PlanStep[] {
  return [
    toolchainStep(env, c),
    ...replSteps(env, c),
    ...projectSteps(env, c),
    ...buildSteps(env),
    { title: `record repl_command for ${env.name} in config/local.json (LEAN_TOOL_CONFIG when set)` },
  ];
}

const add = (a: readonly [number, number], b: readonly [number, number]) => [a[0] + b[0], a[1] + b[1]] as const;

export function addSizes(sizes: readonly Size[]): Size {
  return sizes.reduce<Size>((t, x) => ({ download: add(t.download, x.download), disk: add(t.disk, x.disk) }), {
    download: [0, 0],
    disk: [0, 0],
  });
}

/** What the plan would download and leave on disk: steps not done yet, each counted once (a toolchain two environments share). */
export function planTotal(envs: readonly EnvironmentConfig[], c: PlanContext): Size {
  const seen = new Map<string, Size>();
  if (!c.elan) seen.set('elan', SIZES.elan);
  for (const env of envs)
    for (const s of environmentPlan(env, c))
      if (s.size && !s.done) seen.set(`${s.cwd ?? ''}|${s.command ?? s.title}`, s.size);
  return addSizes([...seen.values()]);
}

const gb = (mb: number) => (mb >= 1000 ? `${(mb / 1000).toFixed(1)} GB` : `${mb} MB`);
const range = ([lo, hi]: readonly [number, number]) => (lo === hi ? `~${gb(lo)}` : `~${gb(lo)}–${gb(hi)}`);

/** One line: the plan's total download and disk size, said as the estimate it is. */
export function formatTotal(total: Size): string {
  return `in all: download ${range(total.download)}, disk ${range(total.disk)} (estimates: sources in lean/setup-plan.ts)`;
}

/** The whole plan as text: elan first when it is missing, then each environment, then the total. */
export function formatPlan(envs: EnvironmentConfig[], c: PlanContext): string {
  const rel = (p: string) => path.relative(c.root, p) || '.';
  const lines = [
    c.replTags
      ? "lean:setup --dry-run: nothing is changed (only the REPL's tags were listed, read-only); sizes are estimates (~)."
      : "lean:setup --dry-run: nothing is run (the REPL's tags could not be listed: each clone names the rule that picks its tag); sizes are estimates (~).",
  ];
  let n = 0;
  const step = (s: PlanStep) => {
    lines.push(`  ${++n}. ${s.title}${s.done ? ` [skipped: ${s.done}]` : ''}`);
    if (s.command) lines.push(`     $ ${s.cwd ? `(${rel(s.cwd)}) ` : ''}${s.command}`);
    if (s.download && !s.done) lines.push(`     download: ${s.download}`);
  };
  if (!c.elan) {
    lines.push('', 'elan (the Lean toolchain manager) is not installed: setup needs it first.');
    step({ title: 'install elan', command: ELAN_INSTALL, download: DOWNLOADS.elan });
  }
  for (const env of envs) {
    lines.push('', `== ${env.name} (${env.lean_toolchain}${env.repo_url ? `, ${env.repo_url}` : ''})`);
    n = 0;
    for (const s of environmentPlan(env, c)) step(s);
  }
  lines.push(
    '',
    'The comparator tool (optional) is set up after each environment; see docs/tools.md, "comparator".',
    '',
    formatTotal(planTotal(envs, c)),
  );
  return lines.join('\n');
}
