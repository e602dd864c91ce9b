/**
 * The jail every REPL runs in by default (bubblewrap): its own user, PID, network, IPC,
 * UTS and cgroup namespaces (no network, not even loopback to the daemon); the system,
 * the Lean toolchain and the environment's Lake project bound read-only; a read-only root;
 * a private, size-capped tmpfs for /tmp and for the working directory; a cleared environment; and
 * death with its parent. Nothing of the daemon (config, keys, logs, home) is mounted.
 */
import { JAIL_NAMESPACE_ARGS } from '../../host/discovery.ts';

export { bwrapStatus, elanHome, findBwrap, type SandboxKind } from '../../host/discovery.ts';

/** The writable working directory inside the jail. */
export const JAIL_WORKDIR = '/scratch';

/** System locations a dynamically linked toolchain needs (bound only if present). */
const SYSTEM_RO = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/localtime',
];

export interface JailSpec {
  /** Paths bound read-only at the same place (toolchain, Lake project, REPL build). */
  readOnly: string[];
  env: Record<string, string>;
  tmpMb: number;
}

export function bwrapArgs(spec: JailSpec): string[] {
  const args = [...JAIL_NAMESPACE_ARGS];
  for (const [k, v] of Object.entries(spec.env)) args.push('--setenv', k, v);
  // The private tmpfs mounts first: a read-only bind below /tmp or the workdir then lands on top of it.
  const size = String(Math.max(1, spec.tmpMb) * 1024 * 1024);
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    size,
    '--tmpfs',
    '/tmp',
    '--size',
    size,
    '--tmpfs',
    JAIL_WORKDIR,
  );
  for (const p of SYSTEM_RO) args.push('--ro-bind-try', p, p);
  for (const p of [...new Set(spec.readOnly)].sort()) args.push('--ro-bind-try', p, p);
  // The jail's own root (where the mount points live) becomes read-only: only /tmp and the workdir take writes.
  args.push('--remount-ro', '/', '--chdir', JAIL_WORKDIR);
  return args;
}
