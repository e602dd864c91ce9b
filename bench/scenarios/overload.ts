/**
 * Overload: 10× the concurrency limit against a slow worker. Every request must end as a
 * result, 429, 503 or 504 within a bound; nothing may hang. Baseline in the same run: the
 * same number of requests at exactly the concurrency limit.
 */
import os from 'node:os';
import { buildApp } from '../../src/app.ts';
import { configSchema } from '../../src/config.ts';
import { drive, round, rssSampler, stats, type ScenarioResult } from '../lib.ts';
import { fakeReplLaunch } from '../fake-repl.ts';
import { benchEnvironment } from '../servers.ts';
import { poster } from './http-client.ts';

export async function overloadScenario(opts: { requests?: number; burnMs?: number } = {}): Promise<ScenarioResult> {
  const cores = os.cpus().length;
  const limit = cores; // per-key concurrency = sessions = cores
  const requests = opts.requests ?? 300;
  const burnMs = opts.burnMs ?? 40;
  const config = configSchema.parse({
    keys: [{ key: 'bench-key-0003', concurrency: limit }],
    admission: { keyQueueLimit: limit * 2, retryAfterSeconds: 1 },
    lean: { minWarm: cores, maxSessions: cores, prefixEntries: 10 },
    environments: [benchEnvironment],
  });
  const app = await buildApp({
    config,
    logger: false,
    probe: () => ({ available: true }),
    launch: (e) => fakeReplLaunch(e),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { post, close } = poster(
    `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    'bench-key-0003',
  );
  await new Promise((r) => setTimeout(r, 1500)); // sessions warm
  let n = 0;
  // Every 10th request also has a deadline shorter than its work: it must end as a 504.
  const body = () => {
    const i = n++;
    return {
      content: `BURN ${burnMs} ${i}\n`,
      environment: 'bench',
      ...(i % 10 === 9 ? { timeout_seconds: burnMs / 4000 } : {}),
    };
  };
  const mem = rssSampler();
  const base = await drive(
    Array.from({ length: Math.round(requests / 3) }, body),
    limit,
    async (b) => (await post('/api/v1/check', b)).status,
  );
  const over = await drive(
    Array.from({ length: requests }, body),
    limit * 10,
    async (b) => (await post('/api/v1/check', b)).status,
  );
  const peak = mem.stop();
  close();
  await app.close();
  const allowed = new Set([200, 429, 503, 504]);
  const unexpected = [...over.statuses].filter(([s]) => !allowed.has(s)).reduce((a, [, c]) => a + c, 0);
  const ended = [...over.statuses.values()].reduce((a, b) => a + b, 0);
  const lat = stats(over.latencies);
  const baseLat = stats(base.latencies);
  const counts = Object.fromEntries([...over.statuses].sort());
  return {
    name: 'overload',
    summary: `${requests} requests at ${limit * 10} concurrent (10× the limit of ${limit}): ${ended}/${requests} ended, statuses ${JSON.stringify(counts)}, ${unexpected} unexpected; p99 ${round(lat.p99, 1)} ms`,
    figures: {
      limit,
      requests,
      burnMs,
      statuses: counts,
      ended,
      unexpected,
      latencyMs: lat,
      baselineLatencyMs: baseLat,
      baselineStatuses: Object.fromEntries(base.statuses),
      seconds: round(over.seconds, 2),
      peakRss: peak,
    },
    table: [
      [
        'load',
        `${requests} requests, ${limit * 10} concurrent; per-key limit ${limit}, queue ${limit * 2}`,
        `worker burns ${burnMs} ms; every 10th request has a deadline of ${burnMs / 4} ms`,
      ],
      ['ended', `${ended}/${requests}`, 'nothing hangs'],
      ['statuses', JSON.stringify(counts), `${unexpected} outside 200/429/503/504`],
      [
        'latency p50 / p95 / p99',
        `${round(lat.p50, 1)} / ${round(lat.p95, 1)} / ${round(lat.p99, 1)} ms`,
        `max ${round(lat.max, 1)} ms`,
      ],
      [
        'baseline at the limit',
        `p50 ${round(baseLat.p50, 1)} / p99 ${round(baseLat.p99, 1)} ms`,
        JSON.stringify(Object.fromEntries(base.statuses)),
      ],
      ['peak RSS daemon / workers', `${peak.daemonPeakMb} / ${peak.workersPeakMb} MiB`, `${cores} fake REPL workers`],
    ],
  };
}
