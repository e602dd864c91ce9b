/**
 * What the integration suite shares: the environment it runs on (a core-only one when several
 * are available, as it starts in seconds), the reason it skips without a toolchain, a daemon on
 * that environment and a one-line tool call. Kept apart from the tests so a unit test can load
 * and exercise it on any machine (the old `leanApp` called itself forever).
 */
import type { Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { EnvironmentConfig } from '../../src/envs/config.ts';
import { probeEnvironment, type Availability } from '../../src/envs/probe.ts';

export const config = loadConfig(process.env);

export interface Chosen {
  env: EnvironmentConfig | undefined;
  /** false when an environment is available; otherwise the printed reason for skipping. */
  skip: false | string;
}

/** The environment to run on, or why there is none (one reason per configured environment). */
export function chooseEnvironment(
  envs: readonly EnvironmentConfig[],
  probe: (e: EnvironmentConfig) => Availability = (e) =>
    probeEnvironment(e, process.env, undefined, e.sandbox ?? config.lean.sandbox),
): Chosen {
  const probes = envs.map((e) => ({ env: e, a: probe(e) }));
  // Prefer a core-only environment: it starts in seconds.
  const ready = probes
    .filter((p) => p.a.available)
    .sort((x, y) => Number(x.env.imports !== '') - Number(y.env.imports !== ''))[0];
  if (ready) return { env: ready.env, skip: false };
  const reasons = skipReasons(
    probes.map((p) => ({ name: p.env.name, reason: p.a.available ? 'available' : p.a.reason })),
  );
  return { env: undefined, skip: `no Lean toolchain here: ${reasons || 'no environment configured'}` };
}

/**
 * The first environment's reason in full, then the names of the others: their reasons differ
 * only by the name in the fix, and eleven of them made every skip line a screenful.
 */
export function skipReasons(unavailable: readonly { name: string; reason: string }[]): string {
  const [first, ...rest] = unavailable;
  if (!first) return '';
  const others = rest.length > 0 ? `; also unavailable: ${rest.map((u) => u.name).join(', ')}` : '';
  return `${first.name}: ${first.reason}${others}`;
}

/** A daemon on the configured environments; nothing warmed ahead, each test starts what it uses. */
export async function leanApp(t: Test, cfg = config): Promise<FastifyInstance> {
  const app = await buildApp({ config: { ...cfg, lean: { ...cfg.lean, minWarm: 0 } }, logger: false });
  t.teardown(() => app.close());
  await app.ready();
  return app;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool's JSON response, read field by field in the tests
type ToolJson = any;

/** POST /api/v1/<tool> on `env`; the JSON response. */
export async function callTool(
  app: FastifyInstance,
  env: EnvironmentConfig | undefined,
  tool: string,
  body: Record<string, unknown>,
): Promise<ToolJson> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/${tool}`,
    payload: { environment: env?.name, timeout_seconds: 600, ...body },
  });
  return res.json();
}
