/**
 * What this host offers Lean, found without running Lean: the toolchain (elan, lake,
 * lean) and bubblewrap (installed, and able to create its namespaces here). A leaf: both
 * envs/ (availability) and backend/ (launching REPLs) use it, and it imports neither, so
 * the two no longer import each other.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { execFile, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export interface Toolchain {
  elan: string | undefined;
  lake: string | undefined;
  lean: string | undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The elan home a toolchain comes from. */
export function elanHome(env: NodeJS.ProcessEnv): string {
  return env.ELAN_HOME ?? path.join(env.HOME ?? os.homedir(), '.elan');
}

/** elan stores `leanprover/lean4:v4.28.0` as `leanprover--lean4---v4.28.0`. */
export function elanToolchainDir(toolchain: string, env: NodeJS.ProcessEnv): string {
  return path.join(elanHome(env), 'toolchains', toolchain.replace(/\//g, '--').replace(/:/g, '---'));
}

/** Search PATH, then elan's default bin folder (often not on a daemon's PATH). */
export function searchDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  dirs.push(path.join(elanHome(env), 'bin'));
  return dirs;
}

export function which(cmd: string, dirs: string[]): string | undefined {
  if (cmd.includes('/')) return isExecutable(cmd) ? cmd : undefined;
  for (const d of dirs) {
    const candidate = path.join(d, cmd);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function discoverToolchain(env: NodeJS.ProcessEnv): Toolchain {
  const dirs = searchDirs(env);
  return { elan: which('elan', dirs), lake: which('lake', dirs), lean: which('lean', dirs) };
}

/** Whether REPLs run in the bubblewrap jail or directly (an environment's choice). */
export type SandboxKind = 'bwrap' | 'none';

/** The namespaces and process settings of the jail (backend/process/sandbox.ts builds the rest of it on these). */
export const JAIL_NAMESPACE_ARGS = [
  '--die-with-parent',
  '--new-session',
  '--unshare-all',
  '--hostname',
  'lean-jail',
  '--clearenv',
];

export function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
  return which('bwrap', searchDirs(env));
}

export type BwrapStatus = { usable: true } | { usable: false; reason: string };

/** Self-test results per bwrap binary (a namespace check costs a process start; do it once). */
const selfTests = new Map<string, BwrapStatus>();

const NOT_INSTALLED: BwrapStatus = {
  usable: false,
  reason:
    'the sandbox is "bwrap" but bwrap is not installed (Debian: apt-get install bubblewrap); ' +
    'to run Lean without the jail, set "sandbox": "none" for the environment',
};

/** The self-test: the jail's namespaces and mounts around `true`. */
function selfTestArgv(): string[] {
  const binds = ['/usr', '/bin', '/lib', '/lib64'].filter((p) => existsSync(p)).flatMap((p) => ['--ro-bind', p, p]);
  return [
    ...JAIL_NAMESPACE_ARGS,
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(2 ** 20),
    '--tmpfs',
    '/tmp',
    ...binds,
    '--remount-ro',
    '/',
    '--',
    'true',
  ];
}

function selfTestResult(status: number | null, stderr: string, error: Error | undefined): BwrapStatus {
  if (status === 0) return { usable: true };
  const why = (stderr || error?.message || `exit ${status}`).trim().slice(0, 300);
  return {
    usable: false,
    reason: `bwrap cannot create its namespaces here (${why}); enable unprivileged user namespaces, or set "sandbox": "none"`,
  };
}

/** Whether bwrap is installed and can create the jail's namespaces and mounts here. */
export function bwrapStatus(env: NodeJS.ProcessEnv): BwrapStatus {
  const bwrap = findBwrap(env);
  if (!bwrap) return NOT_INSTALLED;
  let r = selfTests.get(bwrap);
  if (!r) {
    const p = spawnSync(bwrap, selfTestArgv(), { encoding: 'utf8', timeout: 10_000 });
    r = selfTestResult(p.status, p.stderr, p.error);
    selfTests.set(bwrap, r);
  }
  return r;
}

/**
 * The same, without blocking the event loop while bwrap runs (a process start):
 * the daemon starts it while it builds its routes, and `bwrapStatus` then answers from the
 * result.
 */
export function bwrapStatusAsync(env: NodeJS.ProcessEnv): Promise<BwrapStatus> {
  const bwrap = findBwrap(env);
  if (!bwrap) return Promise.resolve(NOT_INSTALLED);
  const known = selfTests.get(bwrap);
  if (known) return Promise.resolve(known);
  return new Promise((resolve) => {
    execFile(bwrap, selfTestArgv(), { encoding: 'utf8', timeout: 10_000 }, (err, _stdout, stderr) => {
      const status = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      const r = selfTestResult(status, stderr, err && typeof err.code !== 'number' ? err : undefined);
      selfTests.set(bwrap, r);
      resolve(r);
    });
  });
}
