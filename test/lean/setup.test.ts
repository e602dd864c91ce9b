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
