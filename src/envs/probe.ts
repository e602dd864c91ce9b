/**
 * Decides whether an environment can run Lean now, and if not, says exactly what is
 * missing. Reads the file system only; never starts Lean.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { bwrapStatus, discoverToolchain, elanToolchainDir as elanToolchainDirOf, searchDirs, which, type SandboxKind, type Toolchain } from '../host/discovery.ts';
import type { EnvironmentConfig } from './config.ts';

export { elanToolchainDir } from '../host/discovery.ts';

export type Availability = { available: true } | { available: false; reason: string };

const SETUP_HINT = 'run `npm run lean:setup` (see README, "Adding a Lean environment")';

/** Where `lake exe repl` finds its binary: the project itself or the REPL dependency. */
export function replBinaryCandidates(projectDir: string): string[] {
  return ['repl', 'REPL'].map((pkg) => path.join(projectDir, '.lake', 'packages', pkg, '.lake', 'build', 'bin', 'repl'))
    .concat(path.join(projectDir, '.lake', 'build', 'bin', 'repl'));
}

export function probeEnvironment(cfg: EnvironmentConfig, env: NodeJS.ProcessEnv = process.env, tc: Toolchain = discoverToolchain(env), sandbox: SandboxKind = cfg.sandbox ?? 'bwrap'): Availability {
  if (!tc.lake && !tc.elan) {
    return { available: false, reason: `no Lean toolchain found: neither lake nor elan is on PATH or in ~/.elan/bin; install elan, then ${SETUP_HINT}` };
  }
  if (tc.elan && !existsSync(elanToolchainDirOf(cfg.lean_toolchain, env))) {
    return { available: false, reason: `Lean toolchain ${cfg.lean_toolchain} is not installed in elan; ${SETUP_HINT}` };
  }
  if (!existsSync(cfg.project_dir)) {
    return { available: false, reason: `Lake project ${cfg.project_dir} does not exist; ${SETUP_HINT}` };
  }
  if (!['lakefile.lean', 'lakefile.toml'].some((f) => existsSync(path.join(cfg.project_dir, f)))) {
    return { available: false, reason: `${cfg.project_dir} has no lakefile.lean or lakefile.toml; ${SETUP_HINT}` };
  }
  const [cmd, ...args] = cfg.repl_command;
  if (cmd === 'lake' && args[0] === 'exe') {
    if (!replBinaryCandidates(cfg.project_dir).some((f) => existsSync(f))) {
      return { available: false, reason: `the Lean REPL is not built in ${cfg.project_dir}; ${SETUP_HINT}` };
    }
  } else if (cmd === 'lake' && args[0] === 'env' && args[1]) {
    // `lake env <repl binary>` as recorded by lean:setup.
    if (!which(path.isAbsolute(args[1]) ? args[1] : path.join(cfg.project_dir, args[1]), [])) {
      return { available: false, reason: `the Lean REPL binary ${args[1]} is missing; ${SETUP_HINT}` };
    }
  } else if (cmd && cmd !== 'lake') {
    const resolved = path.isAbsolute(cmd) || !cmd.includes('/') ? which(cmd, searchDirs(env)) : which(path.join(cfg.project_dir, cmd), []);
    if (!resolved) return { available: false, reason: `REPL command ${cmd} is not an executable; ${SETUP_HINT}` };
  }
  // Last, as it runs a one-off self-test: the jail must work when it is asked for.
  if (sandbox === 'bwrap') {
    const b = bwrapStatus(env);
    if (!b.usable) return { available: false, reason: b.reason };
  }
  return { available: true };
}
