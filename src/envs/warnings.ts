/**
 * What an operator should read at startup: every environment that cannot run Lean (with
 * the reason, which names the fix) and a missing or unusable bubblewrap when some
 * environment asks for the jail. Logged as warnings and listed in GET /v1/status.
 */
import { bwrapStatus, bwrapStatusAsync } from '../host/discovery.ts';
import type { EnvironmentConfig } from './config.ts';
import type { EnvironmentRegistry } from './registry.ts';

/** Running Lean unjailed must be a visible choice: a warning at start and in /v1/status. */
export function unjailedWarnings(envs: readonly EnvironmentConfig[], defaultSandbox: 'bwrap' | 'none'): string[] {
  return envs
    .filter((e) => (e.sandbox ?? defaultSandbox) === 'none')
    .map(
      (e) =>
        `environment ${e.name} runs Lean without a sandbox ("sandbox": "none"): elaborated code can reach the host, the network and other requests`,
    );
}

export function environmentWarnings(
  envs: readonly EnvironmentConfig[],
  registry: Pick<EnvironmentRegistry, 'availability'>,
  defaultSandbox: 'bwrap' | 'none',
  bwrap: () => ReturnType<typeof bwrapStatus>,
): string[] {
  const out: string[] = [];
  for (const e of envs) {
    const a = registry.availability(e.name);
    if (!a.available)
      out.push(
        `environment ${e.name} cannot run Lean: ${a.reason}; until then its Lean-backed requests answer 409 environment_unavailable (tools with "reparse": false still work)`,
      );
  }
  if (envs.some((e) => (e.sandbox ?? defaultSandbox) === 'bwrap')) {
    const b = bwrap();
    if (!b.usable && !out.some((w) => w.includes(b.reason))) out.push(`bubblewrap: ${b.reason}`);
  }
  return out;
}

/** environmentWarnings, with bwrap's self-test run as a child process the event loop does not wait on. */
export async function startupWarnings(
  envs: readonly EnvironmentConfig[],
  registry: Pick<EnvironmentRegistry, 'availability'>,
  defaultSandbox: 'bwrap' | 'none',
  hostEnv: NodeJS.ProcessEnv,
): Promise<string[]> {
  if (envs.some((e) => (e.sandbox ?? defaultSandbox) === 'bwrap')) await bwrapStatusAsync(hostEnv);
  return environmentWarnings(envs, registry, defaultSandbox, () => bwrapStatus(hostEnv));
}
