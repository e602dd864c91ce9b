/**
 * Cache hits against fair baselines, interleaved: the daemon (own process, default
 * configuration, info logging to a file), a bare fastify route and a bare FastAPI/uvicorn
 * route (Kimina's stack) that both parse the same JSON body and answer the very bytes the
 * daemon's hit answers. autocannon in its own process; rounds rotate the order.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { autocannon, interleave, spread } from '../load.ts';
import {
  benchEnvironment,
  BENCH_KEY,
  post,
  scratch,
  startBareFastify,
  startDaemon,
  startUvicorn,
  type Server,
} from '../servers.ts';
import { pct, round, type ScenarioResult } from '../lib.ts';

/** A realistic request: a few kB of Lean with several declarations. */
export function sampleContent(tag = ''): string {
  const lines = ['import Mathlib', '', `-- ${tag}`, 'namespace Bench', ''];
  for (let i = 0; i < 12; i++) {
    lines.push(
      `/-- The ${i}th lemma. -/`,
      `theorem add_comm_${i} (a b : Nat) : a + b + ${i} = b + a + ${i} := by`,
      '  omega',
      '',
    );
  }
  lines.push('end Bench', '');
  return lines.join('\n');
}

export async function hitPathScenario(
  opts: { seconds?: number; rounds?: number; connections?: number } = {},
): Promise<ScenarioResult> {
  const seconds = opts.seconds ?? 5;
  const rounds = opts.rounds ?? 3;
  const connections = opts.connections ?? 50;
  const daemon = await startDaemon(
    // x-cache on (one caller): the bench checks it measures hits, and the baselines send it too.
    {
      keys: [{ key: BENCH_KEY, concurrency: 10_000 }],
      environments: [benchEnvironment],
      server: { cacheStatus: true },
    },
    { tag: 'hit' },
  );
  const body = JSON.stringify({ content: sampleContent(), environment: 'bench' });
  const first = await post(`${daemon.url}/api/v1/check`, body);
  const second = await post(`${daemon.url}/api/v1/check`, body);
  if (first.status !== 200 || second.headers['x-cache'] !== 'hit')
    throw new Error(`no cache hit to measure: ${first.status} ${String(second.headers['x-cache'])}`);
  const responseFile = path.join(scratch, 'hit-response.json');
  writeFileSync(responseFile, second.body);

  const servers: Server[] = [daemon, await startBareFastify(responseFile)];
  const uv = await startUvicorn(responseFile);
  if (typeof uv !== 'string') servers.push(uv);
  // Same bytes from every target (the baselines are only fair if they answer what the daemon does).
  const sameHeaders = (h: Record<string, unknown>) =>
    ['x-cache', 'content-type', 'content-length'].map((k) => String(h[k])).join('\n');
  for (const s of servers.slice(1)) {
    const r = await post(`${s.url}/api/v1/check`, body);
    if (!r.body.equals(second.body)) throw new Error(`${s.name} does not answer the daemon's bytes`);
    if (s === servers[1] && sameHeaders(r.headers) !== sameHeaders(second.headers))
      throw new Error(`${s.name} does not send the daemon's headers`);
  }
  const byName = new Map(servers.map((s) => [s.name, s]));
  const samples = await interleave([...byName.keys()], rounds, (t, warm) =>
    autocannon(byName.get(t)!.url, { seconds: warm ? 2 : seconds, connections, body, pid: byName.get(t)!.pid }),
  );
  for (const s of servers) await s.stop();

  const of = (t: string) => samples.filter((s) => s.target === t).map((s) => s.result);
  const rps = (t: string) => spread(of(t).map((r) => r.rps));
  const d = rps('daemon');
  const bare = rps('bare fastify');
  // Ratios per round (each round runs both), then their spread.
  const ratio = (t: string) => spread(Array.from({ length: rounds }, (_, i) => of('daemon')[i]!.rps / of(t)[i]!.rps));
  const vsBare = ratio('bare fastify');
  // CPU per request, daemon ÷ bare, per round (the server processes' own CPU from /proc).
  const cpuRatio = spread(
    Array.from(
      { length: rounds },
      (_, i) => (of('daemon')[i]!.cpuUsPerReq ?? 0) / Math.max(1, of('bare fastify')[i]!.cpuUsPerReq ?? 0),
    ),
  );
  const uvName = typeof uv === 'string' ? undefined : uv.name;
  const vsUv = uvName ? ratio(uvName) : undefined;
  const noisy = samples.some((s) => s.result.cpu.noisy);
  const outside = spread(samples.map((s) => s.result.cpu.outside));
  const errors = of('daemon').reduce((a, r) => a + r.errors + r.non2xx, 0);
  return {
    name: 'hit-path',
    summary: `CPU per hit ${round(cpuRatio.median, 2)}× a bare fastify route's (target ≤ 1.1×), throughput ${pct(vsBare.median)} of it (target ≥ 90%)${vsUv ? `, ${round(vsUv.median, 2)}× FastAPI/uvicorn (target ≥ 4×)` : `; ${String(uv)}`}; ${rounds} interleaved rounds of ${seconds} s, ${second.body.length}-byte response`,
    figures: {
      cpuRatio,
      cpuUsPerReq: Object.fromEntries(servers.map((s) => [s.name, spread(of(s.name).map((r) => r.cpuUsPerReq ?? 0))])),
      seconds,
      rounds,
      connections,
      responseBytes: second.body.length,
      requestBytes: body.length,
      daemon: d,
      bare,
      vsBare,
      uvicorn: uvName ? rps(uvName) : uv,
      vsUvicorn: vsUv,
      outside,
      errors,
    },
    table: [
      [
        'request / response',
        `${body.length} / ${second.body.length} bytes`,
        'check with a cached result; every target answers the same bytes from the parsed body',
      ],
      [
        'daemon (default config, info logging)',
        `${round(d.median)} req/s (min ${round(d.min)}, max ${round(d.max)})`,
        `${errors} errors or non-2xx; autocannon ${connections} connections`,
      ],
      [
        'bare fastify route',
        `${round(bare.median)} req/s (min ${round(bare.min)}, max ${round(bare.max)})`,
        'default JSON parser, no logging',
      ],
      [
        'daemon ÷ bare fastify',
        `${pct(vsBare.median)} (min ${pct(vsBare.min)}, max ${pct(vsBare.max)})`,
        'per round; target ≥ 90%',
      ],
      ...(uvName && vsUv
        ? ([
            [
              uvName,
              `${round(rps(uvName).median)} req/s (min ${round(rps(uvName).min)}, max ${round(rps(uvName).max)})`,
              'await request.json(), access log off',
            ],
            [
              'daemon ÷ uvicorn',
              `${round(vsUv.median, 2)}× (min ${round(vsUv.min, 2)}, max ${round(vsUv.max, 2)})`,
              'per round; target ≥ 4×',
            ],
          ] as [string, string, string][])
        : [['FastAPI/uvicorn', 'skipped', String(uv)] as [string, string, string]]),
      [
        'server CPU per request (median)',
        servers.map((s) => `${s.name} ${spread(of(s.name).map((r) => r.cpuUsPerReq ?? 0)).median} µs`).join(', '),
        'from /proc: less sensitive to outside load than req/s',
      ],
      [
        'outside CPU share',
        `${pct(outside.median)} (max ${pct(outside.max)})`,
        noisy ? 'NOISY: other processes used > 10% of the machine in some rounds' : 'quiet',
      ],
    ],
    targets: [
      {
        target: 'CPU per cache hit ≤ 1.1× the bare fastify route',
        figure: `${round(cpuRatio.median, 2)}× (${spread(of('daemon').map((r) => r.cpuUsPerReq ?? 0)).median} vs ${spread(of('bare fastify').map((r) => r.cpuUsPerReq ?? 0)).median} µs)`,
        pass: cpuRatio.median <= 1.1,
        noisy,
      },
      {
        target: 'cache hits ≥ 90% of the bare fastify route',
        figure: pct(vsBare.median),
        pass: vsBare.median >= 0.9,
        noisy,
      },
      vsUv
        ? {
            target: 'cache hits ≥ 4× the FastAPI/uvicorn route',
            figure: `${round(vsUv.median, 2)}×`,
            pass: vsUv.median >= 4,
            noisy,
          }
        : {
            target: 'cache hits ≥ 4× the FastAPI/uvicorn route',
            figure: `skipped: ${String(uv)}`,
            pass: false,
            noisy,
            skipped: true,
          },
    ],
    roundsHeader: ['round', 'target', 'req/s', 'server CPU µs/req', 'p50 / p99 ms', 'outside CPU', ''],
    rounds: samples.map((s) => [
      String(s.round),
      s.target,
      String(round(s.result.rps)),
      String(s.result.cpuUsPerReq ?? ''),
      `${s.result.p50} / ${s.result.p99}`,
      pct(s.result.cpu.outside),
      s.result.cpu.noisy ? 'noisy' : '',
    ]),
  };
}
