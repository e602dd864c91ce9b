/**
 * How a test runs real tool code on recorded Lean: the product's LeanBackend (pool, session,
 * header probe, heartbeat wrapper, framing, response parsing) over the recorded REPL process
 * (recorded-repl.ts) for one REPL tag, through the product's launch path.
 *
 *   const rec = recordedLean(t, 'v4.28.0');           // undefined when ../shared is absent (skip with recordedSkip)
 *   const out = await check.run({ content, ... }, rec.ctx());
 *   t.same(rec.refusals(), []);                        // every answer came from a recording
 *
 * A request with no recording ends the process (exit 86): the tool reports a Lean failure and
 * `refusals()` says which input was missing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Test } from 'tap';
import { LeanBackend, type BackendLimits } from '../../src/backend/index.ts';
import { buildLaunch, NO_LIMITS, type LaunchSpec } from '../../src/backend/process/launch.ts';
import { environmentConfig, type EnvironmentConfig } from '../../src/envs/config.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { TS_LOADER } from '../ts-loader.ts';
import type { DoubleName, Doubles } from './repl-doubles.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
export const RECORDED_REPL = path.join(HERE, 'recorded-repl.ts');

/**
 * The transcripts of one REPL tag (`v4.28.0`: recorded/repl/<tag>), or of a fork's tag (`augustepoiroux@v4.23.0`:
 * recorded/repl-forks/augustepoiroux/<tag>/test, same format), or undefined.
 */
export function recordedTagDir(tag: string): string | undefined {
  const dir = sharedPath('recorded');
  const at = tag.indexOf('@');
  const d =
    dir &&
    (at < 0 ? path.join(dir, 'repl', tag) : path.join(dir, 'repl-forks', tag.slice(0, at), tag.slice(at + 1), 'test'));
  return d && existsSync(d) ? d : undefined;
}

/** The Lean version of a corpus label (`augustepoiroux@v4.23.0` → `v4.23.0`). */
export const leanTagOf = (label: string): string => label.slice(label.indexOf('@') + 1);

/** Why tests on `tag`'s recordings cannot run here, or false. */
export function recordedSkip(tag: string): string | false {
  return (
    sharedSkip('recorded') ||
    (recordedTagDir(tag) ? false : `no recorded REPL transcripts for ${tag} under ../shared/recorded/repl`)
  );
}

const LIMITS: BackendLimits = {
  minWarm: 0,
  maxSessions: 1,
  maxProcesses: 2,
  maxUses: 1000,
  maxRssMb: 4096,
  sandbox: 'none',
  limits: NO_LIMITS,
  prefixEntries: 1000,
  startupTimeoutSeconds: 60,
  rssPollMs: 1000,
  heartbeatsPerSecond: 0,
  // No recording answers the module probe (src/backend/session/module-probe.ts): a header that adds imports to the
  // environment's is elaborated under its own header, as the recordings were made.
  reuseLoadedImports: false,
};

/**
 * The recorded REPL of `tag` through the product's launch path (run by Node through the compile cache, no jail).
 * `helpers`: a pattern of the service's own helper commands (never recordable) refused without ending the process.
 */
export function recordedLaunch(tag: string, refusalsFile: string, helpers?: RegExp, doubles?: Doubles): LaunchSpec {
  const spec = buildLaunch(
    { project_dir: ROOT, repl_command: [process.execPath, ...TS_LOADER, RECORDED_REPL] },
    { limits: NO_LIMITS, sandbox: 'none' },
    process.env,
  );
  return {
    ...spec,
    env: {
      ...spec.env,
      RECORDED_REPL_DIR: recordedTagDir(tag)!,
      RECORDED_REPL_REFUSALS: refusalsFile,
      ...(helpers ? { RECORDED_REPL_HELPERS: helpers.source } : {}),
      ...(doubles ? { RECORDED_REPL_DOUBLES: JSON.stringify(doubles) } : {}),
    },
  };
}

export interface RecordedLean {
  tag: string;
  env: EnvironmentConfig;
  backend: LeanBackend;
  /** A tool context on the recorded backend (a fresh signal each call; no deadline, so no heartbeat wrapper). */
  ctx: () => ToolContext;
  /** The inputs the recorded REPL refused so far (each ended its process). */
  refusals: () => string[];
  /** The service's helper commands (`helpers`) it refused without ending (answered with the REPL's error shape). */
  helperRefusals: () => string[];
  /** The typed doubles (`doubles`) that answered, in order (repl-doubles.ts). */
  doubles: () => DoubleName[];
}

/**
 * A backend on the recorded REPL of `tag`, destroyed at the end of `t`; undefined when the recordings are absent.
 * `helpers`: the service's own helper commands (never recordable) to refuse without ending the process.
 * `doubles`: the typed doubles that may answer the service's own commands (repl-doubles.ts).
 */
export function recordedLean(
  t: Test,
  tag: string,
  imports = '',
  helpers?: RegExp,
  doubles?: Doubles,
): RecordedLean | undefined {
  if (recordedSkip(tag)) return undefined;
  const tmp = mkdtempSync(path.join(tmpdir(), 'recorded-repl-'));
  const refusalsFile = path.join(tmp, 'refusals.jsonl');
  const env = environmentConfig.parse({
    name: `recorded-${tag}`,
    lean_toolchain: `leanprover/lean4:${leanTagOf(tag)}`,
    imports,
    project_dir: ROOT,
  });
  const log = pino({ level: 'silent' });
  const backend = new LeanBackend({
    limits: LIMITS,
    log,
    launch: () => recordedLaunch(tag, refusalsFile, helpers, doubles),
  });
  t.teardown(async () => {
    // A session that never opened (its header refused) rejects again here; that refusal is the test's finding.
    await backend.destroy().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  });
  return {
    tag,
    env,
    backend,
    ctx: () => ({ env, signal: new AbortController().signal, log, lean: backend, progress: () => {} }),
    refusals: () => readRefusals(refusalsFile).hard,
    helperRefusals: () => readRefusals(refusalsFile).helper,
    doubles: () => readRefusals(refusalsFile).doubles,
  };
}

/**
 * The refusals a recorded REPL logged: `hard` ended its process, `helper` answered a helper command with an error;
 * and the typed doubles that answered (`doubles`).
 */
export function readRefusals(file: string): { hard: string[]; helper: string[]; doubles: DoubleName[] } {
  const rows = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { reason: string; helper?: boolean; double?: DoubleName })
    : [];
  return {
    hard: rows.filter((r) => !r.helper && !r.double).map((r) => r.reason),
    helper: rows.filter((r) => r.helper).map((r) => r.reason),
    doubles: rows.flatMap((r) => (r.double ? [r.double] : [])),
  };
}
