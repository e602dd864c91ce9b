/**
 * Issue 29 item 3: AXLE's environment catalogue in config/default.json, each environment
 * unavailable with a reason naming `lean:setup NAME` until set up, and `lean:setup --dry-run`
 * printing every step (with downloads) on a machine without elan.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { loadConfig, PROJECT_ROOT } from '../../src/config.ts';
import { EnvironmentRegistry } from '../../src/envs/registry.ts';
import { ELAN_INSTALL } from '../../lean/setup-plan.ts';
import { TS_LOADER } from '../ts-loader.ts';

const home = mkdtempSync(path.join(os.tmpdir(), 'catalogue-'));
// A host with no Lean at all: no elan, no lake, an empty HOME; no overlay file.
const bare = { PATH: '/usr/bin:/bin', HOME: home, LEAN_TOOL_CONFIG: path.join(home, 'none.json') };
const config = loadConfig(bare, PROJECT_ROOT, { overlayMayBeMissing: true });

// AXLE's names (AxiomMath/axiom-lean-engine docs/configuration.md, docs/setup/configuration.md,
// CHANGELOG up to v1.7.0: lean-4.32.0 removed for a kernel soundness bug, lean-4.32.2 and lean-4.33.0 added).
const AXLE_LEAN = ['4.21.0', '4.25.1', '4.26.0', '4.27.0', '4.28.0', '4.29.0', '4.30.0', '4.31.0', '4.32.2', '4.33.0'];

t.test("the default configuration lists AXLE's environments", async (t) => {
  const byName = new Map(config.environments.map((e) => [e.name, e]));
  for (const v of AXLE_LEAN)
    t.match(byName.get(`lean-${v}`), { lean_toolchain: `leanprover/lean4:v${v}`, imports: 'import Mathlib' }, v);
  t.match(byName.get('pnt-4.26.0'), {
    lean_toolchain: 'leanprover/lean4:v4.26.0',
    repo_url: 'https://github.com/AlexKontorovich/PrimeNumberTheoremAnd',
    revision: 'd24e98e2384cd191486517bfca980576772f6c17',
    imports: 'import Mathlib\nimport PrimeNumberTheoremAnd',
  });
  t.ok(byName.has('core-4.28.0'), 'the core-only environment stays');
  t.notOk(byName.has('lean-4.32.0'), 'lean-4.32.0 is gone (lean4#14484, fixed in 4.32.1/4.32.2)');
  t.notOk(
    config.environments.some((e) => e.lean_toolchain === 'leanprover/lean4:v4.32.0'),
    'no environment runs the unsound 4.32.0',
  );
});

t.test('each is unavailable until set up, and the reason names `lean:setup NAME`', async (t) => {
  const registry = new EnvironmentRegistry(config.environments, { ttlMs: 0, hostEnv: bare });
  const listed = registry.list();
  t.equal(listed.length, config.environments.length);
  for (const e of listed) {
    t.equal(e.available, false, e.name);
    t.match(e.unavailable_reason, `npm run lean:setup -- ${e.name}`, `${e.name}: the reason names its setup`);
  }
});

/**
 * A local repository with some of leanprover-community/repl's tags (as `git tag` lists them in
 * its clone: v4.29.0, v4.32.0, v4.33.0-rc2, and no v4.32.2 or v4.33.0), for LEAN_TOOL_REPL_GIT:
 * the dry run lists its tags without the network.
 */
function replWithTags(tags: readonly string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'repl-tags-'));
  const git = (...a: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
  };
  git('init', '-q');
  git('commit', '-q', '--allow-empty', '-m', 'repl');
  for (const tag of tags) git('tag', tag);
  return dir;
}

/** `lean:setup --dry-run` on the bare host with these extra variables; its output. */
function dryRun(t: Test, env: Record<string, string>, ...names: string[]): string {
  const r = spawnSync(
    process.execPath,
    [...TS_LOADER, path.join(PROJECT_ROOT, 'lean', 'setup.ts'), ...names, '--dry-run'],
    {
      cwd: PROJECT_ROOT,
      env: { ...bare, ...env },
      encoding: 'utf8',
    },
  );
  t.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const REPL_TAGS = ['v4.29.0', 'v4.32.0-rc1', 'v4.32.0', 'v4.33.0-rc1', 'v4.33.0-rc2'];

t.test('lean:setup --dry-run without elan: every step, with its command and download', async (t) => {
  const repl = replWithTags(REPL_TAGS);
  const out = dryRun(t, { LEAN_TOOL_REPL_GIT: repl }, 'lean-4.29.0', 'pnt-4.26.0');
  t.match(out, 'elan (the Lean toolchain manager) is not installed');
  t.match(out, `$ ${ELAN_INSTALL}`, 'the command that installs elan');
  const section = (name: string) => out.slice(out.indexOf(`== ${name}`)).split('\n\n')[0]!;
  const lean = section('lean-4.29.0');
  for (const cmd of [
    'elan toolchain install leanprover/lean4:v4.29.0',
    `git clone --depth 1 --branch v4.29.0 ${repl}`,
    'lake build',
    'lake exe cache get',
  ])
    t.match(lean, cmd, `lean-4.29.0: ${cmd}`);
  t.match(lean, /create the Lake project .*requiring Mathlib v4\.29\.0/);
  t.match(lean, `git ls-remote --tags --refs ${repl}`);
  t.match(out, "only the REPL's tags were listed", 'the dry run says what it ran');
  t.match(lean, /download: .*~700 MB of prebuilt Mathlib/, 'the Mathlib cache download, estimated');
  t.match(lean, /download: ~200-400 MB compressed/, 'the toolchain download, estimated');
  const pnt = section('pnt-4.26.0');
  t.match(pnt, 'git clone https://github.com/AlexKontorovich/PrimeNumberTheoremAnd');
  t.match(pnt, 'git checkout d24e98e2384cd191486517bfca980576772f6c17');
  t.match(pnt, 'lake exe cache get');
  t.notMatch(out, /lean-4\.28\.0/, 'only the environments named');
});

t.test('lean:setup --dry-run for a patch release: the tag it would really clone, and the toolchain pin', async (t) => {
  const repl = replWithTags(REPL_TAGS);
  const out = dryRun(t, { LEAN_TOOL_REPL_GIT: repl }, 'lean-4.32.2', 'lean-4.33.0');
  t.notMatch(out, '--branch v4.32.2', 'never a tag the REPL does not have');
  t.notMatch(out, '--branch v4.33.0 ', 'never a tag the REPL does not have');
  for (const [tag, source] of [
    ['v4.32.2', 'v4.32.0'],
    ['v4.33.0', 'v4.33.0-rc2'],
  ] as const) {
    t.match(out, `--branch ${source} ${repl}`, `${tag}: the nearest tag of its minor version`);
    t.match(
      out,
      `pin the clone's lean-toolchain to leanprover/lean4:${tag} (the REPL has no tag ${tag}: its ${source} source`,
    );
  }
  // No tag of the minor version at all: the plan says the run stops there, as the real run does.
  const none = dryRun(t, { LEAN_TOOL_REPL_GIT: replWithTags(['v4.31.0']) }, 'lean-4.32.2');
  t.match(none, 'none serves v4.32.2');
  t.notMatch(none, 'git clone --depth 1');
  // Tags not listable (offline): the clone names the rule, not a tag.
  const offline = dryRun(t, { LEAN_TOOL_REPL_GIT: path.join(home, 'no-such-repo') }, 'lean-4.32.2');
  t.match(offline, "the REPL's tags could not be listed");
  t.match(offline, '--branch <v4.32.2, else the highest v4.32.x tag before it>');
});

t.test(
  'the plan for a patch release the REPL has no tag for: the nearest tag, built by the patch toolchain',
  async (t) => {
    const { environmentPlan } = await import('../../lean/setup-plan.ts');
    const c = {
      root: PROJECT_ROOT,
      buildDir: path.join(home, 'build'),
      hostEnv: bare,
      elan: undefined,
      replGit: 'https://github.com/leanprover-community/repl',
      mathlibGit: 'https://github.com/leanprover-community/mathlib4',
      // leanprover-community/repl's tags of these minor versions (git tag, as fetched): no v4.32.2, no v4.33.0.
      replTags: ['v4.31.0', 'v4.32.0-rc1', 'v4.32.0', 'v4.33.0-rc1', 'v4.33.0-rc2'],
    };
    const byName = new Map(config.environments.map((e) => [e.name, e]));
    const steps = (name: string) =>
      environmentPlan(byName.get(name)!, c)
        .map((s) => `${s.title} $ ${s.command ?? ''}`)
        .join('\n');
    for (const [name, source, tag] of [
      ['lean-4.32.2', 'v4.32.0', 'v4.32.2'],
      ['lean-4.33.0', 'v4.33.0-rc2', 'v4.33.0'],
    ] as const) {
      const plan = steps(name);
      t.match(
        plan,
        `git clone --depth 1 --branch ${source} ${c.replGit} ${path.join(c.buildDir, `repl-${tag}`)}`,
        name,
      );
      t.match(
        plan,
        `pin the clone's lean-toolchain to leanprover/lean4:${tag}`,
        `${name}: built by the patch toolchain`,
      );
      t.match(plan, 'repl-source-tag', `${name}: the source tag is recorded for the doctor`);
    }
    const same = steps('lean-4.31.0');
    t.match(same, '--branch v4.31.0');
    t.notMatch(same, 'pin the clone', 'a toolchain with its own REPL tag needs no pin');
  },
);
