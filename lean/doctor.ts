/**
 * `npm run lean:doctor [-- env-name…] [--list]`: on a machine with a Lean toolchain, check per
 * configured environment every assumption the daemon makes about Lean and its REPL, and print
 * a pass/fail table with the Lean version. Without a toolchain it says what is missing (one line
 * per distinct reason) and exits non-zero; `--list` then also lists every check, each FAIL. Exit code 0 only when every check of every selected environment passes.
 *
 * Checks (also listed in the README, "Checking a Lean installation"):
 *   environment available      the file-system probe (toolchain, Lake project, REPL build, jail)
 *   header imports             the environment's header loads (the `#print List.cons` probe after it)
 *   failed import detected     a request header importing a missing module opens its own session with the
 *                              failure at its header line (the production path: one session per header)
 *   bare prelude header        a `prelude` header is no import failure
 *   comparator pair            a trivial challenge/solution pair through the comparator tool's runner
 *   Lean version               `#eval Lean.versionString` against the configured lean_toolchain
 *   REPL source serves this toolchain  which REPL tag's source was built (another tag's for a patch release),
 *                              that it runs the configured Lean, and that `#eval 1 + 1` answers 2
 *   memory after import        resident memory of the REPL once the header is loaded
 *   …and every check of src/doctor/checks.ts (message texts and positions, sorry warning and
 *   sorries shape, #print axioms format, goal printing, unused-variable text, mutual / in), and of
 *   src/doctor/tool-checks.ts (merge, disprove, sorry2lemma, have2lemma, extract_decls, verify_proof run
 *   on the environment's backend: the inputs no recording holds).
 */
import { pino } from 'pino';
import { effectiveLimits } from '../src/backend/index.ts';
import { buildLaunch } from '../src/backend/process/launch.ts';
import { ReplProcess } from '../src/backend/process/repl-process.ts';
import { LeanSession } from '../src/backend/session/session.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { formatTable, runChecks } from '../src/doctor/checks.ts';
import { cannotRun, comparatorPair, headerChecks, toolChecks, versionRows } from './doctor-steps.ts';
import { probeEnvironment, type Availability } from '../src/envs/probe.ts';
import { groupUnavailable } from '../src/envs/warnings.ts';

const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const listChecks = process.argv.includes('--list');
const unavailableReason = (a: Availability) => (a.available ? 'available' : a.reason);
const log = pino({ level: 'silent' });

async function main(): Promise<number> {
  const config = loadConfig(process.env);
  const envs = config.environments.filter((e) => only.length === 0 || only.includes(e.name));
  if (envs.length === 0) {
    console.error(
      `no environment matches ${only.join(', ')}; configured: ${config.environments.map((e) => e.name).join(', ')}`,
    );
    return 2;
  }
  const rows: { env: string; check: string; ok: boolean; detail: string }[] = [];
  const probes = envs.map((env) => ({
    env,
    a: probeEnvironment(env, process.env, undefined, env.sandbox ?? config.lean.sandbox),
  }));
  if (probes.every((p) => !p.a.available)) {
    // The advice, not a table of checks that cannot run; `--list` names what a machine with Lean would check.
    const reasons = groupUnavailable(probes.map((p) => ({ name: p.env.name, reason: unavailableReason(p.a) })));
    console.error(
      [
        'lean:doctor needs a Lean toolchain and a built REPL, and no configured environment has them:',
        ...reasons.map((g) => `  - ${g.names.length === 1 ? g.names[0] : g.names.join(', ')}: ${g.reason}`),
        'Install elan (https://github.com/leanprover/elan), run `npm run lean:setup`, then `npm run lean:doctor` again.',
      ].join('\n'),
    );
    if (listChecks) console.log(formatTable(cannotRun(envs.map((e) => e.name))));
    else
      console.error(
        `(\`npm run lean:doctor -- --list\` lists the ${cannotRun(['x']).length} checks it runs per environment.)`,
      );
    return 1;
  }
  for (const { env, a } of probes) {
    rows.push({
      env: env.name,
      check: 'environment available',
      ok: a.available,
      detail: a.available ? `${env.lean_toolchain}, ${env.imports || 'no imports'}` : a.reason,
    });
    if (!a.available) continue;
    const limits = effectiveLimits(config.lean, env);
    const spawn = () =>
      new ReplProcess({
        launch: buildLaunch(env, { limits, sandbox: env.sandbox ?? config.lean.sandbox }, process.env),
        log,
        maxRssBytes: config.lean.maxRssMb * 2 ** 20,
      });
    const signal = AbortSignal.timeout(config.lean.startupTimeoutSeconds * 1000);
    const t0 = performance.now();
    let session: LeanSession;
    try {
      session = await LeanSession.open({ spawn, log, prefixEntries: 1000 }, env.imports, signal);
    } catch (e) {
      rows.push({ env: env.name, check: 'header imports', ok: false, detail: (e as Error).message });
      continue;
    }
    try {
      rows.push({
        env: env.name,
        check: 'header imports',
        ok: true,
        detail: `${env.imports || '(Init only)'} in ${Math.round(performance.now() - t0)} ms`,
      });
      rows.push({
        env: env.name,
        check: 'memory after import',
        ok: true,
        detail: `${Math.round(session.usage().rssBytes / 2 ** 20)} MiB resident`,
      });
      rows.push(...(await headerChecks(env.name, spawn, signal)));
      rows.push(...(await versionRows(env, session, signal)));
      for (const r of await runChecks(session, env, signal))
        rows.push({ env: env.name, check: r.name, ok: r.ok, detail: r.detail });
      rows.push(await comparatorPair(env, config));
    } finally {
      session.kill('doctor done');
    }
    // On a backend of its own, once the session above is gone (one Mathlib process at a time).
    const budget = config.lean.startupTimeoutSeconds * 1000 + 600_000;
    rows.push(...(await toolChecks(env, config, AbortSignal.timeout(budget))));
  }
  console.log(formatTable(rows));
  const failed = rows.filter((r) => !r.ok).length;
  console.log(failed ? `\n${failed} check(s) failed.` : '\nEvery check passed.');
  return failed ? 1 : 0;
}

// A configuration mistake is one line naming the setting, as for the daemon (src/main.ts).
process.exitCode = await main().catch((e: unknown) => {
  if (!(e instanceof ConfigError)) throw e;
  console.error(`lean:doctor: configuration error: ${e.message}`);
  return 1;
});
