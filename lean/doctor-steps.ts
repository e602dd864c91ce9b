/**
 * lean:doctor's checks that need more than one session's command chain: headers opened the way the
 * pools open them (one session per header), and a comparator run through the tool's own runner; plus
 * the table a machine without Lean prints (every check, each saying it cannot run).
 */
import { ComparatorBackend } from '../src/backend/comparator/runner.ts';
import type { ReplProcess } from '../src/backend/process/repl-process.ts';
import { LeanSession } from '../src/backend/session/session.ts';
import { PROJECT_ROOT, type Config } from '../src/config.ts';
import { CHECKS } from '../src/doctor/checks.ts';
import { runToolChecks, TOOL_CHECKS } from '../src/doctor/tool-checks.ts';
import { LeanBackend } from '../src/backend/index.ts';
import type { EnvironmentConfig } from '../src/envs/config.ts';
import { pino } from 'pino';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { judgeReplSource } from '../src/doctor/judges.ts';
import { toolchainTag } from '../src/envs/config.ts';
import { REPL_SOURCE_FILE } from './lake-project.ts';

export interface Row {
  env: string;
  check: string;
  ok: boolean;
  detail: string;
}

/** The checks lean/doctor.ts runs besides CHECKS, in its order. */
export const ENVIRONMENT_CHECKS = [
  'environment available',
  'header imports',
  'memory after import',
  'failed import detected',
  'bare prelude header',
  'Lean version',
  'REPL source serves this toolchain',
];
export const COMPARATOR_CHECK = 'comparator pair (config.json fields, landrun/lean4export found)';

/** Without a toolchain: every check, each "cannot run: no toolchain". */
export function cannotRun(envs: readonly string[]): Row[] {
  const names = [
    ...ENVIRONMENT_CHECKS,
    ...CHECKS.map((c) => c.name),
    ...TOOL_CHECKS.map((c) => c.name),
    COMPARATOR_CHECK,
  ];
  return envs.flatMap((env) => names.map((check) => ({ env, check, ok: false, detail: 'cannot run: no toolchain' })));
}

const log = pino({ level: 'silent' });

/**
 * On the production path: a request's own header gets a session of its own
 * (`LeanSession.open(…, own = false)`, as the backend's pool for that header does); a misspelt import must
 * open with the failure at its header, and a bare `prelude` must open with none.
 */
export async function headerChecks(env: string, spawn: () => ReplProcess, signal: AbortSignal): Promise<Row[]> {
  const open = async (header: string) => {
    const s = await LeanSession.open({ spawn, log, prefixEntries: 10 }, header, signal, false);
    try {
      return (await s.run(header, [], { signal })).root;
    } finally {
      s.kill('doctor done');
    }
  };
  /** One row: the header's session judged, or the reason it did not open. */
  const row = async (
    check: (typeof ENVIRONMENT_CHECKS)[number],
    header: string,
    judge: (root: Awaited<ReturnType<typeof open>>) => { ok: boolean; detail: string },
  ): Promise<Row> => {
    try {
      return { env, check, ...judge(await open(header)) };
    } catch (e) {
      return { env, check, ok: false, detail: `the session did not open: ${(e as Error).message}` };
    }
  };
  return [
    await row(ENVIRONMENT_CHECKS[3]!, 'import AxleDoctorNoSuchModule', (bad) => ({
      ok: bad.importFailure !== undefined,
      detail: bad.importFailure ? 'reported at the header line' : 'NOT reported: a typo in imports would be silent',
    })),
    await row(ENVIRONMENT_CHECKS[4]!, 'prelude', (prelude) => ({
      ok: prelude.importFailure === undefined,
      detail: prelude.importFailure ?? 'no import failure reported',
    })),
  ];
}

/** A comparator challenge/solution pair that must pass, through the comparator tool's runner (skipped when not built). */
export async function comparatorPair(env: EnvironmentConfig, config: Config): Promise<Row> {
  const backend = new ComparatorBackend({
    root: PROJECT_ROOT,
    config: config.comparator,
    sandbox: env.sandbox ?? config.lean.sandbox,
    limits: config.lean.limits,
    parentEnv: process.env,
  });
  const located = backend.locate(env);
  if ('missing' in located)
    return { env: env.name, check: COMPARATOR_CHECK, ok: true, detail: `not built: ${located.missing.join('; ')}` };
  const r = await backend.run(
    {
      env,
      challenge: 'theorem doctor_cmp : 1 + 1 = 2 := by sorry\n',
      solution: 'theorem doctor_cmp : 1 + 1 = 2 := by decide\n',
      theoremNames: ['doctor_cmp'],
      definitionNames: [],
      memoryMb: backend.defaultMemoryMb,
      signal: AbortSignal.timeout(600_000),
    },
    located.tools,
  );
  return {
    env: env.name,
    check: COMPARATOR_CHECK,
    ok: r.okay,
    detail: r.okay ? `okay in ${r.ms} ms` : `exit ${r.exitStatus}: ${r.output.slice(-300)}`,
  };
}

/**
 * The tool checks (src/doctor/tool-checks.ts) on the daemon's own backend for the environment, built as
 * src/app.ts builds it (the configured limits and the host's environment), so the tools' inputs go through the
 * pool, session, header probe and heartbeat budget production uses. `backend` is a seam for tests (a double
 * of the REPL process); without it the backend is made here and destroyed after the checks.
 */
export async function toolChecks(
  env: EnvironmentConfig,
  config: Pick<Config, 'lean'>,
  signal: AbortSignal,
  backend?: LeanBackend,
): Promise<Row[]> {
  const own = backend ?? new LeanBackend({ limits: { ...config.lean, minWarm: 0 }, log, hostEnv: process.env });
  try {
    return (await runToolChecks(own, env, signal, log)).map((r) => ({ env: env.name, check: r.name, ...r }));
  } finally {
    if (!backend) await own.destroy();
  }
}

/** The info a one-command run printed (quotes of a string value removed). */
async function evalInfo(session: LeanSession, env: EnvironmentConfig, key: string, text: string, signal: AbortSignal) {
  const v = await session.run(env.imports, [{ key, text }], { signal });
  return v.outcomes[0]?.messages
    .find((m) => m.severity === 'info')
    ?.data.replace(/"/g, '')
    .trim();
}

/** The clone lean:setup built the REPL in, when repl_command runs its binary (`lake env <clone>/.lake/build/bin/repl`). */
function replClone(env: EnvironmentConfig): string | undefined {
  const bin = env.repl_command.at(-1) ?? '';
  return bin.endsWith(path.join('.lake', 'build', 'bin', 'repl'))
    ? path.resolve(bin, '..', '..', '..', '..')
    : undefined;
}

const readTrimmed = (file: string | undefined) =>
  file !== undefined && existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;

/**
 * `Lean version`, and whether the REPL serves the toolchain: a patch release the REPL has no tag for runs
 * the source of the nearest tag of its minor version, built by the patch toolchain (docs/environments.md,
 * "Patch releases"); the row says which source and passes only when that REPL runs the configured Lean
 * and answers a trivial command.
 */
export async function versionRows(env: EnvironmentConfig, session: LeanSession, signal: AbortSignal): Promise<Row[]> {
  const version = await evalInfo(session, env, 'doctor-version', '#eval Lean.versionString', signal);
  const trivial = await evalInfo(session, env, 'doctor-trivial', '#eval 1 + 1', signal);
  const want = toolchainTag(env.lean_toolchain);
  const clone = replClone(env);
  const source = judgeReplSource({
    toolchain: want ?? env.lean_toolchain,
    source: readTrimmed(clone && path.join(clone, REPL_SOURCE_FILE)),
    cloneToolchain: readTrimmed(clone && path.join(clone, 'lean-toolchain')),
    trivial,
    version,
  });
  return [
    {
      env: env.name,
      check: ENVIRONMENT_CHECKS[5]!,
      ok: version !== undefined && (want === undefined || version === want.slice(1)),
      detail: `Lean ${version ?? '?'} (configured ${env.lean_toolchain})`,
    },
    { env: env.name, check: ENVIRONMENT_CHECKS[6]!, ...source },
  ];
}
