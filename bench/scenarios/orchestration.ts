/**
 * Orchestration against the CPU limit: the daemon (its own process, default configuration)
 * keeps `cores` fake-REPL sessions busy with commands that each burn a fixed CPU time
 * (`BURN <ms>` spends process CPU time, not wall-clock time), driven by autocannon in its own
 * process with a unique content per request (no cache). The limit is cores ÷ CPU per
 * command; the figure is the fraction of it reached. Check of the figure's meaning: the same
 * run with the daemon and its workers pinned to one core (taskset) must reach about half.
 */
import { autocannon, interleave, spread, type CannonRun } from '../load.ts';
import { cores } from '../proc.ts';
import { benchEnvironment, BENCH_KEY, startDaemon, type Server } from '../servers.ts';
import { pct, round, type ScenarioResult } from '../lib.ts';

export async function orchestrationScenario(
  opts: { burnMs?: number; seconds?: number; rounds?: number } = {},
): Promise<ScenarioResult> {
  const n = cores();
  const burnMs = opts.burnMs ?? 50;
  const seconds = opts.seconds ?? 8;
  const rounds = opts.rounds ?? 3;
  const limit = (n * 1000) / burnMs;
  const overlay = {
    keys: [{ key: BENCH_KEY, concurrency: 10_000 }],
    lean: { minWarm: n, maxSessions: n },
    environments: [benchEnvironment],
  };
  const servers: Record<string, Server> = {
    [`${n} cores`]: await startDaemon(overlay, { tag: 'orch' }),
    '1 core (taskset -c 0)': await startDaemon(overlay, { tag: 'orch-pinned', cpus: '0' }),
  };
  await new Promise((r) => setTimeout(r, 1500)); // sessions warm
  const body = JSON.stringify({ content: `BURN ${burnMs} [<id>]\n`, environment: 'bench' });
  const samples = await interleave(Object.keys(servers), rounds, (t, warm) =>
    autocannon(servers[t]!.url, {
      seconds: warm ? 2 : seconds,
      connections: n * 3,
      body,
      uniqueIds: true,
      pid: servers[t]!.pid,
      ...(t.startsWith('1 core') ? { cpus: '1' } : {}),
    }),
  );
  for (const s of Object.values(servers)) await s.stop();

  const of = (t: string) => samples.filter((s) => s.target === t).map((s) => s.result);
  const fractions = (t: string) => spread(of(t).map((r) => r.rps / limit));
  const full = fractions(`${n} cores`);
  const one = fractions('1 core (taskset -c 0)');
  const outside = spread(of(`${n} cores`).map((r) => r.cpu.outside));
  // What the other processes left us: the limit scaled by the machine share they did not use.
  const leftFull = spread(of(`${n} cores`).map((r) => r.rps / (limit * Math.max(0.05, 1 - r.cpu.outside))));
  const noisy = of(`${n} cores`).some((r) => r.cpu.noisy);
  const errors = samples.reduce((a, s) => a + s.result.errors + s.result.non2xx, 0);
  const row = (r: CannonRun) => [
    `${round(r.rps, 2)} req/s`,
    pct(r.rps / limit),
    pct(r.cpu.outside),
    r.cpu.noisy ? 'noisy' : '',
    String(round((r.cpuUsPerReq ?? 0) / 1000, 2)),
  ];
  return {
    name: 'orchestration',
    summary: `${pct(full.median)} of the CPU limit (${round(limit, 1)} req/s = ${n} cores ÷ ${burnMs} ms CPU per command; median of ${rounds}, target ≥ 95%); pinned to one core: ${pct(one.median)} (expected ≈ 50%)`,
    figures: {
      cores: n,
      burnMs,
      seconds,
      rounds,
      limit,
      fraction: full,
      pinnedFraction: one,
      fractionOfWhatWasLeft: leftFull,
      outside,
      errors,
    },
    table: [
      [
        'worker',
        `fake REPL spending ${burnMs} ms of CPU time per command (process.cpuUsage), ${n} sessions`,
        'autocannon in its own process, unique content per request',
      ],
      [
        `fraction of the CPU limit, ${n} cores`,
        `${pct(full.median)} (min ${pct(full.min)}, max ${pct(full.max)})`,
        `limit ${round(limit, 1)} req/s; target ≥ 95%`,
      ],
      [
        'same, daemon + workers pinned to 1 core',
        `${pct(one.median)} (min ${pct(one.min)}, max ${pct(one.max)})`,
        'must be about half: the stand-in is CPU-bound',
      ],
      [
        'fraction of the CPU the other processes left',
        `${pct(leftFull.median)} (min ${pct(leftFull.min)}, max ${pct(leftFull.max)})`,
        'throughput ÷ (limit × (1 − outside share)): an estimate',
      ],
      [
        'outside CPU share during the runs',
        `${pct(outside.median)} (max ${pct(outside.max)})`,
        noisy ? 'NOISY: other processes used > 10% of the machine' : 'quiet',
      ],
      [
        'CPU per command, daemon + workers',
        `${round(spread(of(`${n} cores`).map((r) => r.cpuUsPerReq ?? 0)).median / 1000, 2)} ms`,
        `from /proc, independent of outside load: the stand-in's ${burnMs} ms plus the daemon's share`,
      ],
      ['errors / non-2xx', String(errors), ''],
    ],
    targets: [
      {
        target: 'orchestration ≥ 95% of cores ÷ CPU per command',
        figure: pct(full.median),
        pass: full.median >= 0.95,
        noisy,
      },
    ],
    roundsHeader: ['round', 'daemon', 'throughput', 'fraction of limit', 'outside CPU', '', 'CPU ms per command'],
    rounds: samples.map((s) => [String(s.round), s.target, ...row(s.result)]),
  };
}
