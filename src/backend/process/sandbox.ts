/**
 * The jail every REPL runs in by default (bubblewrap): its own user, PID, network, IPC,
 * UTS and cgroup namespaces (no network, not even loopback to the daemon); the system,
 * the Lean toolchain and the environment's Lake project bound read-only; a read-only root;
 * a private, size-capped tmpfs for /tmp and for the working directory; a cleared environment; and
 * death with its parent. Nothing of the daemon (config, keys, logs, home) is mounted.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { searchDirs, which } from '../../envs/toolchain.ts';

export type SandboxKind = 'bwrap' | 'none';

/** The writable working directory inside the jail. */
export const JAIL_WORKDIR = '/scratch';

/** System locations a dynamically linked toolchain needs (bound only if present). */
const SYSTEM_RO = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/localtime'];

export interface JailSpec {
  /** Paths bound read-only at the same place (toolchain, Lake project, REPL build). */
  readOnly: string[];
  env: Record<string, string>;
  tmpMb: number;
}

export function bwrapArgs(spec: JailSpec): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--hostname', 'lean-jail', '--clearenv'];
  for (const [k, v] of Object.entries(spec.env)) args.push('--setenv', k, v);
  // The private tmpfs mounts first: a read-only bind below /tmp or the workdir then lands on top of it.
  const size = String(Math.max(1, spec.tmpMb) * 1024 * 1024);
  args.push('--proc', '/proc', '--dev', '/dev', '--size', size, '--tmpfs', '/tmp', '--size', size, '--tmpfs', JAIL_WORKDIR);
  for (const p of SYSTEM_RO) args.push('--ro-bind-try', p, p);
  for (const p of [...new Set(spec.readOnly)].sort()) args.push('--ro-bind-try', p, p);
  // The jail's own root (where the mount points live) becomes read-only: only /tmp and the workdir take writes.
  args.push('--remount-ro', '/', '--chdir', JAIL_WORKDIR);
  return args;
}

export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return which('bwrap', searchDirs(env));
}

/** Self-test results per bwrap binary (a namespace check costs a process start; do it once). */
const selfTests = new Map<string, { usable: true } | { usable: false; reason: string }>();

/** Whether bwrap is installed and can create the namespaces here. */
export function bwrapStatus(env: NodeJS.ProcessEnv = process.env): { usable: true } | { usable: false; reason: string } {
  const bwrap = findBwrap(env);
  if (!bwrap) {
    return { usable: false, reason: 'the sandbox is "bwrap" but bwrap is not installed (Debian: apt-get install bubblewrap); to run Lean without the jail, set "sandbox": "none" for the environment' };
  }
  let r = selfTests.get(bwrap);
  if (!r) {
    const p = spawnSync(bwrap, [...bwrapArgs({ readOnly: [], env: { PATH: '/usr/bin:/bin' }, tmpMb: 1 }), '--', 'true'], { encoding: 'utf8', timeout: 10_000 });
    r = p.status === 0 ? { usable: true } : { usable: false, reason: `bwrap cannot create its namespaces here (${(p.stderr || p.error?.message || `exit ${p.status}`).trim().slice(0, 300)}); enable unprivileged user namespaces, or set "sandbox": "none"` };
    selfTests.set(bwrap, r);
  }
  return r;
}

/** The elan home a toolchain comes from (bound read-only into the jail). */
export function elanHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.ELAN_HOME ?? path.join(env.HOME ?? os.homedir(), '.elan');
}
