import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { NO_LIMITS, buildLaunch } from '../../src/backend/process/launch.ts';
import { environmentConfig, lakeDir, sameToolchain } from '../../src/envs/config.ts';
import { elanToolchainDir, probeEnvironment } from '../../src/envs/probe.ts';
import { EnvironmentRegistry } from '../../src/envs/registry.ts';
import { discoverToolchain } from '../../src/envs/toolchain.ts';

/** A fake HOME with an elan layout, so every probe branch can be reached without Lean. */
function fakeInstall() {
  const home = mkdtempSync(path.join(os.tmpdir(), 'home-'));
  const bin = path.join(home, '.elan', 'bin');
  mkdirSync(bin, { recursive: true });
  for (const exe of ['elan', 'lake', 'lean']) {
    writeFileSync(path.join(bin, exe), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, exe), 0o755);
  }
  const project = path.join(home, 'proj');
  const env = { HOME: home, PATH: '/nonexistent' };
  const cfg = environmentConfig.parse({
    name: 'lean-4.28.0',
    lean_toolchain: 'leanprover/lean4:v4.28.0',
    imports: 'import Mathlib',
    project_dir: project,
  });
  return { home, project, env, cfg };
}

t.test('no toolchain anywhere', async (t) => {
  const { cfg } = fakeInstall();
  const a = probeEnvironment(cfg, { HOME: '/nonexistent', PATH: '/nonexistent' });
  t.equal(a.available, false);
  t.match(!a.available && a.reason, /neither lake nor elan/);
});

t.test('each missing piece is named, in order, until available', async (t) => {
  const { project, env, cfg } = fakeInstall();
  t.same(discoverToolchain(env).lake?.endsWith('.elan/bin/lake'), true, 'elan bin is searched even when not on PATH');
  const reason = () => {
    const a = probeEnvironment(cfg, env);
    return a.available ? 'available' : a.reason;
  };
  t.match(reason(), /leanprover\/lean4:v4.28.0 is not installed in elan/);
  mkdirSync(elanToolchainDir(cfg.lean_toolchain, env), { recursive: true });
  t.match(reason(), /does not exist/);
  mkdirSync(project);
  t.match(reason(), /no lakefile/);
  writeFileSync(path.join(project, 'lakefile.toml'), 'name = "x"\n');
  t.match(reason(), /REPL is not built/);
  const replBin = path.join(project, '.lake', 'packages', 'REPL', '.lake', 'build', 'bin');
  mkdirSync(replBin, { recursive: true });
  writeFileSync(path.join(replBin, 'repl'), '');
  t.match(reason(), /the sandbox is "bwrap" but bwrap is not installed/, 'the jail is required by default');
  t.equal(probeEnvironment(cfg, env, undefined, 'none').available, true, 'available once the jail is explicitly off');
  t.equal(probeEnvironment({ ...cfg, sandbox: 'none' }, env).available, true);
  // The command lean:setup records: `lake env <repl binary>`.
  const recorded = {
    ...cfg,
    sandbox: 'none' as const,
    repl_command: ['lake', 'env', path.join(project, 'missing-repl')],
  };
  const a = probeEnvironment(recorded, env);
  t.match(!a.available && a.reason, /REPL binary .*missing-repl is missing/);
  writeFileSync(path.join(project, 'missing-repl'), '#!/bin/sh\n');
  chmodSync(path.join(project, 'missing-repl'), 0o755);
  t.equal(probeEnvironment(recorded, env).available, true);
});

t.test('the registry caches availability for its TTL, then re-probes', async (t) => {
  const { cfg } = fakeInstall();
  let calls = 0;
  let up = false;
  const reg = new EnvironmentRegistry([cfg], {
    ttlMs: 1000,
    probe: () => {
      calls++;
      return up ? { available: true } : { available: false, reason: 'down' };
    },
  });
  t.equal(reg.availability(cfg.name, 0).available, false);
  up = true;
  t.equal(reg.availability(cfg.name, 500).available, false, 'cached');
  t.equal(reg.availability(cfg.name, 1500).available, true, 're-probed after the TTL');
  t.equal(calls, 2);
  t.throws(() => new EnvironmentRegistry([cfg, cfg], { ttlMs: 0, hostEnv: {} }), /twice/);
});

/** A ready project (lakefile, REPL built) at `dir`, inside a fake elan install. */
function readyProject(dir: string) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'lakefile.toml'), 'name = "x"\n');
  const replBin = path.join(dir, '.lake', 'packages', 'REPL', '.lake', 'build', 'bin');
  mkdirSync(replBin, { recursive: true });
  writeFileSync(path.join(replBin, 'repl'), '');
}

t.test('defect 8: a subdir environment is probed and launched in its subdir', async (t) => {
  const { project, env, cfg } = fakeInstall();
  mkdirSync(elanToolchainDir(cfg.lean_toolchain, env), { recursive: true });
  readyProject(path.join(project, 'sub'));
  const sub = { ...cfg, subdir: 'sub', sandbox: 'none' as const };
  t.equal(probeEnvironment(sub, env).available, true, 'the lakefile and REPL of the subdir count');
  t.equal(lakeDir(sub), path.join(project, 'sub'));
  const launch = buildLaunch(sub, { limits: NO_LIMITS, sandbox: 'none' }, env);
  t.equal(launch.cwd, path.join(project, 'sub'), 'the REPL runs in the subdir');
});

t.test('defect 9: a project pinning another toolchain than the configured one is unavailable', async (t) => {
  const { project, env, cfg } = fakeInstall();
  mkdirSync(elanToolchainDir(cfg.lean_toolchain, env), { recursive: true });
  readyProject(project);
  const none = { ...cfg, sandbox: 'none' as const };
  writeFileSync(path.join(project, 'lean-toolchain'), 'leanprover/lean4:v4.28.0\n');
  t.equal(probeEnvironment(none, env).available, true, 'the same toolchain');
  writeFileSync(path.join(project, 'lean-toolchain'), 'leanprover/lean4:v4.27.0\n');
  const a = probeEnvironment(none, env);
  t.match(
    !a.available && a.reason,
    /pins leanprover\/lean4:v4\.27\.0 in lean-toolchain but the environment is configured with leanprover\/lean4:v4\.28\.0/,
  );
  t.equal(sameToolchain('leanprover/lean4:4.28.0', 'leanprover/lean4:v4.28.0'), true);
});
