/**
 * What an operator should read at startup: the environments that cannot run Lean (one line per
 * distinct reason, which names the fix: eleven environments without a toolchain are one line, not
 * eleven) and a missing or unusable bubblewrap when some environment asks for the jail. Logged as
 * warnings (with the environments as a field) and listed in GET /v1/status.
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

/** A startup warning: its line for people (also listed in GET /v1/status) and its fields for machines. */
export interface StartupWarning {
  text: string;
  /** The environments it is about, when it is about some. */
  environments?: string[];
  reason?: string;
}

/** What the daemon still serves without Lean, said once (app.ts derives the tools from their needsLean). */
export interface WithoutLean {
  /** Tools that answer without Lean when sent `"reparse": false`. */
  reparseFalse: readonly string[];
}

/** The environments that cannot run Lean, grouped by their reason (an environment's own name in it made generic). */
export function groupUnavailable(
  items: readonly { name: string; reason: string }[],
): { names: string[]; reason: string }[] {
  const groups = new Map<string, string[]>();
  for (const { name, reason } of items) {
    const key = reason.split(name).join('NAME');
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  return [...groups].map(([reason, names]) => ({
    names,
    reason: names.length === 1 ? reason.split('NAME').join(names[0]!) : reason,
  }));
}

function unavailableText(names: string[], reason: string, without: WithoutLean | undefined): string {
  const which = names.length === 1 ? `environment ${names[0]}` : `${names.length} environments (${names.join(', ')})`;
  const still = without?.reparseFalse.length
    ? `; ${without.reparseFalse.join(', ')} still answer with "reparse": false`
    : '';
  const them = names.length === 1 ? 'it' : 'them';
  return `${which} cannot run Lean: ${reason}; until then Lean-backed requests to ${them} answer 409 environment_unavailable${still}`;
}

/** One warning per distinct reason an environment cannot run Lean (not one per environment), then bubblewrap's. */
export function environmentWarnings(
  envs: readonly EnvironmentConfig[],
  registry: Pick<EnvironmentRegistry, 'availability'>,
  defaultSandbox: 'bwrap' | 'none',
  bwrap: () => ReturnType<typeof bwrapStatus>,
  without?: WithoutLean,
): StartupWarning[] {
  const down = envs.flatMap((e) => {
    const a = registry.availability(e.name);
    return a.available ? [] : [{ name: e.name, reason: a.reason }];
  });
  const out: StartupWarning[] = groupUnavailable(down).map(({ names, reason }) => ({
    text: unavailableText(names, reason, without),
    environments: names,
    reason,
  }));
  if (envs.some((e) => (e.sandbox ?? defaultSandbox) === 'bwrap')) {
    const b = bwrap();
    if (!b.usable && !out.some((w) => w.text.includes(b.reason))) out.push({ text: `bubblewrap: ${b.reason}` });
  }
  return out;
}

/** environmentWarnings, with bwrap's self-test run as a child process the event loop does not wait on. */
export async function startupWarnings(
  envs: readonly EnvironmentConfig[],
  registry: Pick<EnvironmentRegistry, 'availability'>,
  defaultSandbox: 'bwrap' | 'none',
  hostEnv: NodeJS.ProcessEnv,
  without?: WithoutLean,
): Promise<StartupWarning[]> {
  if (envs.some((e) => (e.sandbox ?? defaultSandbox) === 'bwrap')) await bwrapStatusAsync(hostEnv);
  return environmentWarnings(envs, registry, defaultSandbox, () => bwrapStatus(hostEnv), without);
}
