/**
 * How a REPL process is started: the environment's REPL command under hard resource
 * limits (prlimit), inside the bubblewrap jail unless the environment says
 * `"sandbox": "none"`.
 */
import path from 'node:path';
import { lakeDir, type EnvironmentConfig } from '../../envs/config.ts';
import { elanHome, findBwrap, searchDirs, which } from '../../host/discovery.ts';
import { bwrapArgs, JAIL_WORKDIR, type SandboxKind } from './sandbox.ts';

export interface LaunchSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  sandbox: SandboxKind;
}

/** Per-process limits; 0 disables one. Defaults are in config/default.json (`lean.limits`). */
export interface ProcessLimits {
  /** Address space (prlimit --as), MiB. Lean maps oleans: leave room for Mathlib (~6 GiB). */
  addressSpaceMb: number;
  /** CPU seconds of one process (prlimit --cpu); sessions are recycled before they reach it. */
  cpuSeconds: number;
  /** Processes and threads (prlimit --nproc; also enforced by the watchdog, which also sees root). */
  maxProcesses: number;
  /** Open files (prlimit --nofile). */
  maxOpenFiles: number;
  /** Largest file a process may write (prlimit --fsize), MiB. */
  maxFileSizeMb: number;
  /** Size of each private tmpfs (/tmp and the working directory) in the jail, MiB. */
  tmpMb: number;
}

export const NO_LIMITS: ProcessLimits = {
  addressSpaceMb: 0,
  cpuSeconds: 0,
  maxProcesses: 0,
  maxOpenFiles: 0,
  maxFileSizeMb: 0,
  tmpMb: 64,
};

/** What Lean and Lake need from the daemon's environment, nothing else (no keys, no config paths). */
export function childEnv(parent: NodeJS.ProcessEnv): Record<string, string> {
  const keep = ['PATH', 'HOME', 'ELAN_HOME', 'LEAN_PATH', 'LEAN_SRC_PATH', 'LAKE_HOME', 'TMPDIR', 'LANG', 'LC_ALL'];
  const env: Record<string, string> = {};
  for (const k of keep) if (parent[k] !== undefined) env[k] = parent[k]!;
  // elan's bin folder is often missing from a daemon's PATH.
  env.PATH = [env.PATH ?? '', path.join(elanHome(parent), 'bin')].filter(Boolean).join(path.delimiter);
  return env;
}

function prlimitArgs(limits: ProcessLimits, parent: NodeJS.ProcessEnv): string[] {
  const prlimit = which('prlimit', searchDirs(parent));
  const flags = [
    limits.addressSpaceMb > 0 ? `--as=${limits.addressSpaceMb * 2 ** 20}` : '',
    limits.cpuSeconds > 0 ? `--cpu=${limits.cpuSeconds}` : '',
    limits.maxProcesses > 0 ? `--nproc=${limits.maxProcesses}` : '',
    limits.maxOpenFiles > 0 ? `--nofile=${limits.maxOpenFiles}` : '',
    limits.maxFileSizeMb > 0 ? `--fsize=${limits.maxFileSizeMb * 2 ** 20}` : '',
  ].filter(Boolean);
  return prlimit && flags.length > 0 ? [prlimit, ...flags, '--'] : [];
}

export function buildLaunch(
  cfg: Pick<EnvironmentConfig, 'project_dir' | 'repl_command'> &
    Partial<Pick<EnvironmentConfig, 'lean_toolchain' | 'subdir'>>,
  opts: { limits: ProcessLimits; sandbox: SandboxKind },
  parent: NodeJS.ProcessEnv,
): LaunchSpec {
  const env = childEnv(parent);
  // The Lake project (project_dir or its subdir), resolved in one place for setup, probe and launch.
  const dir = lakeDir(cfg);
  // elan picks a toolchain from the cwd's lean-toolchain file; in the jail the cwd is elsewhere, so say it.
  if (cfg.lean_toolchain) env.ELAN_TOOLCHAIN = cfg.lean_toolchain;
  const limited = prlimitArgs(opts.limits, parent);
  if (opts.sandbox === 'none') return { argv: [...limited, ...cfg.repl_command], cwd: dir, env, sandbox: 'none' };

  const bwrap = findBwrap(parent) ?? 'bwrap';
  let command = [...cfg.repl_command];
  // Lake finds its project from the cwd; in the jail the cwd is the private workdir, so name the project.
  if (path.basename(command[0]!) === 'lake' && !command.includes('-d') && !command.includes('--dir'))
    command = [command[0]!, '-d', dir, ...command.slice(1)];
  // Absolute paths the command names (a REPL built outside the project) must be visible, read-only.
  const named = command.filter((a) => path.isAbsolute(a)).map((a) => path.dirname(a));
  const readOnly = [cfg.project_dir, elanHome(parent), ...named];
  const jailEnv = { ...env, HOME: JAIL_WORKDIR, TMPDIR: '/tmp', ELAN_HOME: elanHome(parent) };
  const argv = [
    bwrap,
    ...bwrapArgs({ readOnly, env: jailEnv, tmpMb: opts.limits.tmpMb }),
    '--',
    ...limited,
    ...command,
  ];
  return { argv, cwd: dir, env, sandbox: 'bwrap' };
}
