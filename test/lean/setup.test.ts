import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { generatedProject, replTagFor, tagsOfLsRemote } from '../../lean/lake-project.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { toolchainTag } from '../../src/envs/config.ts';
import { TS_LOADER } from '../ts-loader.ts';

t.test('toolchain tags', async (t) => {
  t.equal(toolchainTag('leanprover/lean4:v4.28.0'), 'v4.28.0');
  t.equal(toolchainTag('leanprover/lean4:v4.33.0-rc2'), 'v4.33.0-rc2');
  t.equal(toolchainTag('leanprover/lean4:4.21.0'), 'v4.21.0');
  t.equal(toolchainTag('nightly'), undefined);
});

t.test('without elan, lean:setup fails and says what is missing', async (t) => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'nohome-'));
  const r = spawnSync(process.execPath, [...TS_LOADER, path.join(PROJECT_ROOT, 'lean', 'setup.ts')], {
    cwd: PROJECT_ROOT,
    env: { PATH: '/usr/bin:/bin', HOME: home, LEAN_TOOL_CONFIG: path.join(home, 'none.json') },
    encoding: 'utf8',
  });
  t.equal(r.status, 1);
  t.match(r.stderr, /needs elan/);
  t.match(r.stderr, /lean-4\.28\.0: leanprover\/lean4:v4\.28\.0, REPL v4\.28\.0/);
});

t.test('comparator step: pinned checkout and build commands; a missing pin is named', async (t) => {
  const { setupComparator } = await import('../../lean/comparator-setup.ts');
  const { configSchema } = await import('../../src/config.ts');
  const { environmentConfig } = await import('../../src/envs/config.ts');
  const root = mkdtempSync(path.join(os.tmpdir(), 'cmp-setup-'));
  const env = environmentConfig.parse({
    name: 'e',
    lean_toolchain: 'leanprover/lean4:v4.28.0',
    imports: '',
    project_dir: '/p',
  });
  const pin = {
    comparator: '7a0cae3df7a0200ff330c82420b8d88a51c9cac7',
    lean4export: '048394e1afeeb52b0fa27bcf3f1ade2ff0f0ab6d',
  };
  const config = configSchema.parse({ comparator: { landrun: 'shim', pins: { 'v4.28.0': pin } } });
  const calls: string[] = [];
  const run = async (cmd: string, argv: string[], cwd: string) => {
    calls.push(`${path.relative(root, cwd) || '.'}: ${cmd} ${argv.join(' ')}`);
    return '';
  };
  const r = await setupComparator(env, config, root, run, true);
  t.same(calls, [
    `lean/.build: git clone https://github.com/leanprover/comparator ${path.join(root, 'lean/.build/comparator-v4.28.0')}`,
    `lean/.build/comparator-v4.28.0: git checkout --detach ${pin.comparator}`,
    'lean/.build/comparator-v4.28.0: lake build lean4export comparator',
  ]);
  t.same(r.missing, []);
  t.match(r.built.join('\n'), /fake-landrun\.sh.*only sandbox/);
  const none = await setupComparator(
    environmentConfig.parse({ ...env, lean_toolchain: 'leanprover/lean4:v4.99.0' }),
    config,
    root,
    run,
    true,
  );
  t.match(none.missing.join('\n'), /no pin in config comparator\.pins \(pinned: v4\.28\.0\)/);
});

/**
 * A machine where everything setup makes already exists, with fake `elan`/`lake` that log their
 * arguments (process doubles, no Lean): re-running setup must skip what exists and work offline.
 */
function preparedMachine(pin = 'leanprover/lean4:v4.28.0', subdir: string | null = null) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'setup-home-'));
  const bin = path.join(home, '.elan', 'bin');
  mkdirSync(bin, { recursive: true });
  const log = path.join(home, 'calls.log');
  for (const exe of ['elan', 'lake']) {
    writeFileSync(path.join(bin, exe), `#!/bin/sh\necho "${exe} $*" >> ${log}\nexit 0\n`);
    chmodSync(path.join(bin, exe), 0o755);
  }
  mkdirSync(path.join(home, '.elan', 'toolchains', 'leanprover--lean4---v4.28.0'), { recursive: true });
  const build = path.join(home, 'build');
  mkdirSync(path.join(build, 'repl-v4.28.0', '.lake', 'build', 'bin'), { recursive: true });
  writeFileSync(path.join(build, 'repl-v4.28.0', '.lake', 'build', 'bin', 'repl'), '');
  const project = path.join(home, 'proj');
  const root = subdir ? path.join(project, subdir) : project;
  mkdirSync(path.join(root, '.lake', 'packages', 'mathlib', '.lake', 'build', 'lib', 'lean'), { recursive: true });
  writeFileSync(path.join(root, '.lake', 'packages', 'mathlib', '.lake', 'build', 'lib', 'lean', 'Mathlib.olean'), '');
  writeFileSync(path.join(root, 'lakefile.toml'), 'name = "p"\n\n[[require]]\nname = "mathlib"\n');
  writeFileSync(path.join(root, 'lean-toolchain'), `${pin}\n`);
  const config = path.join(home, 'local.json');
  writeFileSync(
    config,
    JSON.stringify({
      environments: [
        {
          name: 'e',
          lean_toolchain: 'leanprover/lean4:v4.28.0',
          imports: 'import Mathlib',
          project_dir: project,
          subdir,
        },
      ],
    }),
  );
  const r = spawnSync(process.execPath, [...TS_LOADER, path.join(PROJECT_ROOT, 'lean', 'setup.ts')], {
    cwd: PROJECT_ROOT,
    env: { PATH: '/usr/bin:/bin', HOME: home, LEAN_TOOL_CONFIG: config, LEAN_TOOL_BUILD_DIR: build },
    encoding: 'utf8',
  });
  const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  return { r, calls, root, config };
}

t.test('defect 12: re-running lean:setup skips what exists (no download: works offline)', async (t) => {
  const { r, calls, root, config } = preparedMachine();
  t.equal(r.status, 0, r.stderr);
  t.same(calls, ['lake build'], 'no toolchain install, no REPL clone/build, no Mathlib cache download');
  t.match(r.stdout, /Mathlib oleans present: skipping/);
  t.match(readFileSync(config, 'utf8'), /"lake",\s*"env"/);
  t.ok(existsSync(path.join(root, 'lakefile.toml')));
});

t.test('defect 8: a subdir environment is set up in its subdir', async (t) => {
  const { r, calls } = preparedMachine('leanprover/lean4:v4.28.0', 'sub/project');
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /Lake project exists: .*sub\/project/);
  t.same(calls, ['lake build']);
});

t.test('defect 9: a project pinning another toolchain is refused at setup', async (t) => {
  const { r, calls } = preparedMachine('leanprover/lean4:v4.27.0');
  t.equal(r.status, 1);
  t.match(
    r.stderr,
    /pins leanprover\/lean4:v4\.27\.0 in lean-toolchain but the environment is configured with leanprover\/lean4:v4\.28\.0/,
  );
  t.same(calls, [], 'nothing built');
});

// Issue 27, defect 15: the REPL tags as `git tag` lists them in leanprover-community/repl (v4.24.0 … v4.33.0-rc2 part).
const REPL_TAGS = [
  'v4.24.0',
  'v4.24.0-rc1',
  'v4.25.0',
  'v4.25.0-rc2',
  'v4.25.1',
  'v4.26.0',
  'v4.27.0',
  'v4.28.0',
  'v4.29.0',
  'v4.30.0',
  'v4.31.0',
  'v4.32.0',
  'v4.32.0-rc1',
  'v4.33.0-rc1',
  'v4.33.0-rc2',
];
t.test('defect 15: a toolchain without a REPL tag gets the highest tag of its minor version', async (t) => {
  t.equal(replTagFor('v4.28.0', REPL_TAGS), 'v4.28.0');
  t.equal(replTagFor('v4.24.1', REPL_TAGS), 'v4.24.0');
  t.equal(replTagFor('v4.32.1', REPL_TAGS), 'v4.32.0');
  t.equal(replTagFor('v4.32.2', REPL_TAGS), 'v4.32.0');
  t.equal(replTagFor('v4.25.2', REPL_TAGS), 'v4.25.1');
  t.equal(replTagFor('v4.33.0', REPL_TAGS), 'v4.33.0-rc2', 'a release after its last rc');
  t.equal(replTagFor('v4.34.0', REPL_TAGS), undefined, 'another minor version is never used');
  t.same(tagsOfLsRemote('abc\trefs/tags/v4.24.0\ndef\trefs/tags/v4.32.0\n'), ['v4.24.0', 'v4.32.0']);
});

t.test('defect 16: the generated project builds the header and requires no REPL', async (t) => {
  const f = generatedProject('lean-4.28.0', 'import Mathlib\n', { git: 'https://x/mathlib4', rev: 'v4.28.0' });
  t.match(f['lakefile.toml'], /^defaultTargets = \["EnvHeader"\]$/m);
  t.match(f['lakefile.toml'], /\[\[lean_lib\]\]\nname = "EnvHeader"/);
  t.match(f['lakefile.toml'], /\[\[require\]\]\nname = "mathlib"\ngit = "https:\/\/x\/mathlib4"\nrev = "v4.28.0"/);
  t.notMatch(f['lakefile.toml'], /REPL|repl/, 'the REPL is built on its own, not required');
  t.match(f['EnvHeader.lean'], /^import Mathlib$/m);
  t.notMatch(generatedProject('plain', '', undefined)['lakefile.toml'], /require/);
});

t.test('no name: the default environment only, said, with the plan total (download and disk)', async (t) => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'nohome-'));
  const setup = (...args: string[]) =>
    spawnSync(process.execPath, [...TS_LOADER, path.join(PROJECT_ROOT, 'lean', 'setup.ts'), ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: '/usr/bin:/bin', HOME: home, LEAN_TOOL_CONFIG: path.join(home, 'none.json') },
      encoding: 'utf8',
    });
  const r = setup('--dry-run');
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /^setting up lean-4\.28\.0, the default environment .*--all for all \d+/);
  t.same(
    [...r.stdout.matchAll(/^== (\S+)/gm)].map((m) => m[1]),
    ['lean-4.28.0'],
    'one environment planned',
  );
  t.match(r.stdout, /^in all: download ~[\d.]+ GB–[\d.]+ GB, disk ~[\d.]+ GB–[\d.]+ GB \(estimates/m);
  t.notMatch(r.stdout, /see README, "comparator"/, 'the comparator pointer names a section that exists');
  const all = setup('--dry-run', '--all');
  t.ok([...all.stdout.matchAll(/^== /gm)].length > 1, 'every environment with --all');
});

t.test('the plan total counts a step shared by two environments once', async (t) => {
  const { planTotal, SIZES } = await import('../../lean/setup-plan.ts');
  const { environmentConfig } = await import('../../src/envs/config.ts');
  const env = (name: string) =>
    environmentConfig.parse({
      name,
      lean_toolchain: 'leanprover/lean4:v4.28.0',
      imports: '',
      project_dir: `/nonexistent/${name}`,
    });
  const c = {
    root: '/r',
    buildDir: '/nonexistent/b',
    hostEnv: { HOME: '/nonexistent' },
    elan: '/bin/elan',
    replGit: 'g',
    mathlibGit: 'm',
  };
  const one = planTotal([env('a')], c);
  t.same(one.download, [
    SIZES.toolchain.download[0] + SIZES.repl.download[0],
    SIZES.toolchain.download[1] + SIZES.repl.download[1],
  ]);
  t.same(planTotal([env('a'), env('b')], c), one, 'same toolchain and REPL: counted once');
});
