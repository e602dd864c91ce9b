/**
 * How a REPL process is started: the environment's REPL command, run in its Lake project,
 * wrapped in `prlimit` for a hard address-space cap. (The sandbox wrapper goes here too.)
 */
import path from 'node:path';
import type { EnvironmentConfig } from '../../envs/config.ts';
import { searchDirs, which } from '../../envs/toolchain.ts';

export interface LaunchSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface ProcessLimits {
  /** Hard address-space cap (prlimit --as); Lean maps oleans, so leave room for Mathlib (~6 GiB). */
  addressSpaceMb: number;
}

/** What Lean and Lake need from the daemon's environment, nothing else (no keys, no config paths). */
export function childEnv(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const keep = ['PATH', 'HOME', 'ELAN_HOME', 'LEAN_PATH', 'LEAN_SRC_PATH', 'LAKE_HOME', 'TMPDIR', 'LANG', 'LC_ALL'];
  const env: Record<string, string> = {};
  for (const k of keep) if (parent[k] !== undefined) env[k] = parent[k]!;
  // elan's bin folder is often missing from a daemon's PATH.
  const elanBin = path.join(parent.ELAN_HOME ?? path.join(parent.HOME ?? '', '.elan'), 'bin');
  env.PATH = [env.PATH ?? '', elanBin].filter(Boolean).join(path.delimiter);
  return env;
}

export function buildLaunch(cfg: Pick<EnvironmentConfig, 'project_dir' | 'repl_command'>, limits: ProcessLimits, parent: NodeJS.ProcessEnv = process.env): LaunchSpec {
  const env = childEnv(parent);
  const prlimit = which('prlimit', searchDirs(parent));
  const capBytes = Math.round(limits.addressSpaceMb * 1024 * 1024);
  const argv = prlimit && capBytes > 0 ? [prlimit, `--as=${capBytes}`, '--', ...cfg.repl_command] : [...cfg.repl_command];
  return { argv, cwd: cfg.project_dir, env };
}
