/**
 * Decides whether an environment can run Lean now, and if not, says exactly what is
 * missing. Reads the file system only; never starts Lean.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  bwrapStatus,
  discoverToolchain,
  elanToolchainDir as elanToolchainDirOf,
  searchDirs,
  which,
  type SandboxKind,
  type Toolchain,
} from '../host/discovery.ts';
import { lakeDir, sameToolchain, type EnvironmentConfig } from './config.ts';

export { elanToolchainDir } from '../host/discovery.ts';

export type Availability = { available: true } | { available: false; reason: string };

/** The fix an unavailable environment's reason names: setting up that one environment. */
const setupHint = (name: string) =>
  `run \`npm run lean:setup -- ${name}\` (\`--dry-run\` first prints each step; see docs/environments.md)`;

/** Where `lake exe repl` finds its binary: the project itself or the REPL dependency. */
export function replBinaryCandidates(projectDir: string): string[] {
  return ['repl', 'REPL']
    .map((pkg) => path.join(projectDir, '.lake', 'packages', pkg, '.lake', 'build', 'bin', 'repl'))
    .concat(path.join(projectDir, '.lake', 'build', 'bin', 'repl'));
}

export function probeEnvironment(
  cfg: EnvironmentConfig,
  env: NodeJS.ProcessEnv,
  tc: Toolchain = discoverToolchain(env),
  sandbox: SandboxKind = cfg.sandbox ?? 'bwrap',
): Availability {
  if (!tc.lake && !tc.elan) {
    return {
      available: false,
      reason: `no Lean toolchain found: neither lake nor elan is on PATH or in ~/.elan/bin; install elan, then ${setupHint(cfg.name)}`,
    };
  }
  if (tc.elan && !existsSync(elanToolchainDirOf(cfg.lean_toolchain, env))) {
    return {
      available: false,
      reason: `Lean toolchain ${cfg.lean_toolchain} is not installed in elan; ${setupHint(cfg.name)}`,
    };
  }
  const dir = lakeDir(cfg);
  if (!existsSync(dir)) {
    return { available: false, reason: `Lake project ${dir} does not exist; ${setupHint(cfg.name)}` };
  }
  if (!['lakefile.lean', 'lakefile.toml'].some((f) => existsSync(path.join(dir, f)))) {
    return { available: false, reason: `${dir} has no lakefile.lean or lakefile.toml; ${setupHint(cfg.name)}` };
  }
  // The daemon runs the configured toolchain (ELAN_TOOLCHAIN); oleans built by another one do not load.
  const pinned = readPinnedToolchain(dir);
  if (pinned !== undefined && !sameToolchain(pinned, cfg.lean_toolchain)) {
    return {
      available: false,
      reason:
        `the Lake project ${dir} pins ${pinned} in lean-toolchain but the environment is configured with ${cfg.lean_toolchain}: ` +
        `its .olean files would not load; set lean_toolchain to ${pinned} or check out a revision built with ${cfg.lean_toolchain}`,
    };
  }
  const [cmd, ...args] = cfg.repl_command;
  if (cmd === 'lake' && args[0] === 'exe') {
    if (!replBinaryCandidates(dir).some((f) => existsSync(f))) {
      return { available: false, reason: `the Lean REPL is not built in ${dir}; ${setupHint(cfg.name)}` };
    }
  } else if (cmd === 'lake' && args[0] === 'env' && args[1]) {
    // `lake env <repl binary>` as recorded by lean:setup.
    if (!which(path.isAbsolute(args[1]) ? args[1] : path.join(dir, args[1]), [])) {
      return { available: false, reason: `the Lean REPL binary ${args[1]} is missing; ${setupHint(cfg.name)}` };
    }
  } else if (cmd && cmd !== 'lake') {
    const resolved =
      path.isAbsolute(cmd) || !cmd.includes('/') ? which(cmd, searchDirs(env)) : which(path.join(dir, cmd), []);
    if (!resolved)
      return { available: false, reason: `REPL command ${cmd} is not an executable; ${setupHint(cfg.name)}` };
  }
  // Last, as it runs a one-off self-test: the jail must work when it is asked for.
  if (sandbox === 'bwrap') {
    const b = bwrapStatus(env);
    if (!b.usable) return { available: false, reason: b.reason };
  }
  return { available: true };
}

/** The toolchain a Lake project pins in its `lean-toolchain` file (first line), if it has one. */
export function readPinnedToolchain(dir: string): string | undefined {
  const file = path.join(dir, 'lean-toolchain');
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').split('\n')[0]!.trim() || undefined;
}
