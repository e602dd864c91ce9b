/**
 * The environment a request that names none runs on (MCP tool calls, Kimina's routes): the
 * newest stable `lean-<major>.<minor>.<patch>`, as AXLE's MCP server picks its default
 * (AxiomMath/axle-mcp-server, tests/test_default_environment.py: highest version, patch
 * breaking ties, `-rc` names and other prefixes ignored, the last listed when none matches).
 * This service also knows whether an environment can run Lean now: the pick is made among
 * those that can, and among all only when none can (the call then fails naming the fix).
 */
const STABLE = /^lean-(\d+)\.(\d+)\.(\d+)$/;

export interface Pickable {
  name: string;
  available?: boolean | undefined;
}

function newestOf(envs: readonly Pickable[]): string | undefined {
  let best: { name: string; v: number[] } | undefined;
  for (const e of envs) {
    const m = STABLE.exec(e.name);
    if (!m) continue;
    const v = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!best || compare(v, best.v) > 0) best = { name: e.name, v };
  }
  return best?.name ?? envs[envs.length - 1]?.name;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** The default environment's name; undefined when none is configured. */
export function latestEnvironment(envs: readonly Pickable[]): string | undefined {
  const available = envs.filter((e) => e.available !== false);
  return newestOf(available.length > 0 ? available : envs);
}
