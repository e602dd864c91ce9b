/**
 * The fake REPL test double the bench drives (there is no Lean here), and its launch: the
 * environment's own settings with the double as its REPL command, unjailed and without process
 * limits unless a scenario measures those.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLaunch, NO_LIMITS, type LaunchSpec } from '../src/backend/process/launch.ts';
import type { EnvironmentConfig } from '../src/envs/config.ts';

export const FAKE_REPL = fileURLToPath(new URL('../test/fixtures/fake-repl.mjs', import.meta.url));

export function fakeReplLaunch(
  e: Partial<Pick<EnvironmentConfig, 'project_dir' | 'lean_toolchain' | 'subdir'>> = {},
  opts: Parameters<typeof buildLaunch>[1] = { limits: NO_LIMITS, sandbox: 'none' },
  script = FAKE_REPL,
): LaunchSpec {
  return buildLaunch(
    { project_dir: path.dirname(FAKE_REPL), ...e, repl_command: [process.execPath, script] },
    opts,
    process.env,
  );
}
