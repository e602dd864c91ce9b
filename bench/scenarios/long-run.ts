/**
 * A long run through the Lean pools with a worker whose memory grows with every command
 * (the fake REPL test double with FAKE_REPL_GROW_PER_CMD_MB: the REPL keeps every command
 * state, so a real session grows the same way, only slower and by more).
 *
 * 10,000 commands (one new command per request, after a shared one the sessions reuse;
 * each new one allocates its MiB, then works 5 ms, so a process crosses a threshold while
 * it works, as Lean does while it elaborates),
 * 4 callers, 2 processes at most. Reported per window of 1,000 commands: p50/p99 latency;
 * overall: retirements and their reasons, peak RSS of one process, failed requests. Run
 * twice: with the soft threshold at 70% of the hard cap (the default), and at 100% (soft
 * equal to hard: the old behaviour, where retirement and the kill were the same number).
 */
import path from 'node:path';
import { withDeadline } from '../../src/admission/request-timeout.ts';
import { LeanBackend } from '../../src/backend/index.ts';
import { NO_LIMITS } from '../../src/backend/process/launch.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { round, stats, type ScenarioResult } from '../lib.ts';
import { FAKE_REPL, fakeReplLaunch } from '../fake-repl.ts';
import { pino } from 'pino';

interface RunFigures {
  softRssPercent: number;
  commands: number;
  failed: number;
  failures: Record<string, number>;
  seconds: number;
  windows: { from: number; p50: number; p99: number }[];
  overall: { p50: number; p99: number; max: number };
  retirements: number;
  reasons: Record<string, number>;
  peakRssMb: number;
  peakProcesses: number;
}

async function longRun(softRssPercent: number, commands: number, growMb: number, hardMb: number): Promise<RunFigures> {
  const env = environmentConfig.parse({
    name: 'bench',
    lean_toolchain: 'x',
    imports: 'import Mathlib',
    project_dir: path.dirname(FAKE_REPL),
  });
  const launch = fakeReplLaunch();
  const b = new LeanBackend({
    limits: {
      minWarm: 1,
      maxSessions: 2,
      maxProcesses: 2,
      maxUses: 1_000_000,
      maxRssMb: hardMb,
      softRssPercent,
      maxStates: 1_000_000,
      sandbox: 'none',
      limits: NO_LIMITS,
      prefixEntries: 1000,
      startupTimeoutSeconds: 30,
      rssPollMs: 50,
    },
    log: pino({ level: 'silent' }),
    launch: () => ({ ...launch, env: { ...launch.env, FAKE_REPL_GROW_PER_CMD_MB: String(growMb) } }),
  });
  const latencies: number[] = new Array<number>(commands);
  const failures: Record<string, number> = {};
  let peakRss = 0;
  let peakProcs = 0;
  const sampler = setInterval(() => {
    for (const h of Object.values(b.stats().bench?.headers ?? {}))
      for (const s of h.sessions) peakRss = Math.max(peakRss, s.rssMb);
    peakProcs = Math.max(peakProcs, b.processes());
  }, 100);
  const t0 = performance.now();
  let next = 0;
  const o = { line: 1, column: 0 };
  const caller = async () => {
    while (next < commands) {
      const i = next++;
      const s = performance.now();
      try {
        await withDeadline(30, undefined, (signal) =>
          b.elaborate(
            env,
            {
              header: 'import Mathlib',
              commands: [
                { text: 'def shared := 1', origin: o },
                { text: `SLEEP 5 c${i}`, origin: o },
              ],
            },
            { signal },
          ),
        );
      } catch (e) {
        const k = (e as { fault?: string; code?: string }).fault ?? (e as { code?: string }).code ?? 'other';
        failures[k] = (failures[k] ?? 0) + 1;
      }
      latencies[i] = performance.now() - s;
    }
  };
  await Promise.all([caller(), caller(), caller(), caller()]);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const st = b.stats().bench!;
  const reasons: Record<string, number> = {};
  for (const h of Object.values(st.headers))
    for (const [k, n] of Object.entries(h.retiredBy)) reasons[k] = (reasons[k] ?? 0) + n;
  await b.destroy();
  const windows: RunFigures['windows'] = [];
  for (let from = 0; from < commands; from += 1000) {
    const w = stats(latencies.slice(from, from + 1000));
    windows.push({ from, p50: round(w.p50, 2), p99: round(w.p99, 2) });
  }
  const all = stats(latencies);
  return {
    softRssPercent,
    commands,
    failed: Object.values(failures).reduce((a, x) => a + x, 0),
    failures,
    seconds: round(seconds, 1),
    windows,
    overall: { p50: round(all.p50, 2), p99: round(all.p99, 2), max: round(all.max, 1) },
    retirements: st.retired,
    reasons,
    peakRssMb: peakRss,
    peakProcesses: peakProcs,
  };
}

export async function longRunScenario(opts: { commands?: number } = {}): Promise<ScenarioResult> {
  const commands = opts.commands ?? Number(process.env.LONG_RUN_COMMANDS ?? 10_000);
  const growMb = 1;
  const hardMb = 200;
  const soft = await longRun(70, commands, growMb, hardMb);
  const old = await longRun(100, commands, growMb, hardMb);
  const row = (r: RunFigures, label: string): [string, string, string][] => [
    [`${label}: failed requests`, `${r.failed} of ${r.commands}`, JSON.stringify(r.failures)],
    [
      `${label}: p50 / p99 / max (ms)`,
      `${r.overall.p50} / ${r.overall.p99} / ${r.overall.max}`,
      `${r.seconds} s total`,
    ],
    [
      `${label}: p99 per 1,000 commands (ms)`,
      r.windows.map((w) => w.p99).join(', '),
      `p50: ${r.windows.map((w) => w.p50).join(', ')}`,
    ],
    [`${label}: retirements`, String(r.retirements), `by reason: ${JSON.stringify(r.reasons)}`],
    [
      `${label}: peak RSS of one process`,
      `${r.peakRssMb} MiB`,
      `hard cap ${hardMb} MiB; peak processes ${r.peakProcesses} (cap 2)`,
    ],
  ];
  return {
    name: 'long-run',
    summary: `${commands} commands, +${growMb} MiB per command, hard cap ${hardMb} MiB: soft 70% → ${soft.failed} failed, ${soft.retirements} retirements, p99 ${soft.overall.p99} ms; soft = hard → ${old.failed} failed`,
    figures: { soft, softEqualsHard: old },
    table: [...row(soft, 'soft 70%'), ...row(old, 'soft = hard (before)')],
  };
}
