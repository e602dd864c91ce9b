import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';
import { toolchainTag } from '../../src/envs/config.ts';

t.test('toolchain tags', async (t) => {
  t.equal(toolchainTag('leanprover/lean4:v4.28.0'), 'v4.28.0');
  t.equal(toolchainTag('leanprover/lean4:v4.33.0-rc2'), 'v4.33.0-rc2');
  t.equal(toolchainTag('leanprover/lean4:4.21.0'), 'v4.21.0');
  t.equal(toolchainTag('nightly'), undefined);
});

t.test('without elan, lean:setup fails and says what is missing', async (t) => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'nohome-'));
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'lean', 'setup.ts')], {
    cwd: PROJECT_ROOT, env: { PATH: '/usr/bin:/bin', HOME: home, LEAN_TOOL_CONFIG: path.join(home, 'none.json') }, encoding: 'utf8',
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
  const env = environmentConfig.parse({ name: 'e', lean_toolchain: 'leanprover/lean4:v4.28.0', imports: '', project_dir: '/p' });
  const pin = { comparator: '7a0cae3df7a0200ff330c82420b8d88a51c9cac7', lean4export: '048394e1afeeb52b0fa27bcf3f1ade2ff0f0ab6d' };
  const config = configSchema.parse({ comparator: { landrun: 'shim', pins: { 'v4.28.0': pin } } });
  const calls: string[] = [];
  const run = async (cmd: string, argv: string[], cwd: string) => { calls.push(`${path.relative(root, cwd) || '.'}: ${cmd} ${argv.join(' ')}`); return ''; };
  const r = await setupComparator(env, config, root, run, true);
  t.same(calls, [
    `lean/.build: git clone https://github.com/leanprover/comparator ${path.join(root, 'lean/.build/comparator-v4.28.0')}`,
    `lean/.build/comparator-v4.28.0: git checkout --detach ${pin.comparator}`,
    'lean/.build/comparator-v4.28.0: lake build lean4export comparator',
  ]);
  t.same(r.missing, []);
  t.match(r.built.join('\n'), /fake-landrun\.sh.*only sandbox/);
  const none = await setupComparator(environmentConfig.parse({ ...env, lean_toolchain: 'leanprover/lean4:v4.99.0' }), config, root, run, true);
  t.match(none.missing.join('\n'), /no pin in config comparator\.pins \(pinned: v4\.28\.0\)/);
});
