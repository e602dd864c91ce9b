/** Helpers to run the fake REPL test double through the real launch path. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { BackendLimits } from '../../src/backend/index.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { buildLaunch, NO_LIMITS, type LaunchSpec } from '../../src/backend/process/launch.ts';
import type { SandboxKind } from '../../src/backend/process/sandbox.ts';

export const FAKE_REPL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/fake-repl.mjs');
export const silent = pino({ level: 'silent' });

/** A backend's limits for tests over the fake REPL: one session, no jail, no process limits; `over` changes any. */
export const fakeBackendLimits = (over: Partial<BackendLimits> = {}): BackendLimits => ({
  minWarm: 0,
  maxSessions: 1,
  maxProcesses: 4,
  maxUses: 1000,
  maxRssMb: 4096,
  sandbox: 'none',
  limits: NO_LIMITS,
  prefixEntries: 1000,
  startupTimeoutSeconds: 30,
  rssPollMs: 100,
  ...over,
});

/** An environment for backend tests over the fake REPL: their launch ignores its toolchain and project. */
export const fakeEnvironment = (imports = 'import Mathlib', name = 'lean-test') =>
  environmentConfig.parse({ name, lean_toolchain: 'x', imports, project_dir: '/tmp' });

/** The fake REPL through the product's launch path; no jail unless a test asks (it is the slow part). */
export function fakeLaunch(
  extraEnv: Record<string, string> = {},
  addressSpaceMb = 0,
  sandbox: SandboxKind = 'none',
): LaunchSpec {
  const spec = buildLaunch(
    { project_dir: path.dirname(FAKE_REPL), repl_command: [process.execPath, FAKE_REPL] },
    { limits: { ...NO_LIMITS, addressSpaceMb }, sandbox },
    process.env,
  );
  return { ...spec, env: { ...spec.env, ...extraEnv } };
}

/** Pids whose process group is `pgid` (from /proc/<pid>/stat field 5). */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * Resolves true once `cond` holds. No wall-clock bound of its own: on a busy machine a condition can
 * take long to come true, and one that never does fails the test at tap's per-file timeout.
 */
export async function waitFor(cond: () => boolean): Promise<boolean> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
  return true;
}
