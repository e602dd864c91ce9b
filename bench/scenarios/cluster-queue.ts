/**
 * What the distribution itself costs a job: 1, 2 and 4 in-process workers (one slot each) whose
 * job is a 20 ms wait (no CPU), twice as many clients as slots, over a real nats-server. Ideal is
 * n × 1000 / 20 jobs a second; the fixed cost per job is a slot's cycle less 20 ms, and, apart,
 * less the waits' own measured length (a 20 ms timer fires late, more so on a busy machine: that
 * part is not the cluster's).
 * Front, workers and clients share this process's one thread: on a loaded machine their wake-ups
 * queue behind other processes, which is why only quiet runs are judged.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { configSchema } from '../../src/config.ts';
import type { ToolImpl } from '../../src/tools/types.ts';
import { startNatsServer } from '../../test/cluster/nats-server.ts';
import { drive, round, stats, type TargetResult } from '../lib.ts';
import { cpuMeter } from '../proc.ts';
import { poster } from './http-client.ts';

const KEY = 'bench-key-cluster';
const ENV = { name: 'bench', lean_toolchain: 'leanprover/lean4:v4.28.0', imports: '', project_dir: '/nonexistent' };
const JOB_MS = 20;
/** Jobs per worker in a measured run. */
const PER_WORKER = Number(process.env.BENCH_CLUSTER_QUEUE_JOBS ?? 100);
/** Target: each worker count reaches this share of its ideal throughput. */
export const QUEUE_EFFICIENCY = 0.9;

/** A cluster bench daemon's configuration (no cache, no warm sessions; the cluster scenarios share it). */
export const benchClusterConfig = (cluster: object, key = KEY) =>
  configSchema.parse({
    keys: [{ key, concurrency: 64 }],
    cache: { maxBytes: 0 },
    lean: { minWarm: 0 },
    environments: [ENV],
    cluster,
  });
const config = (cluster: object) => benchClusterConfig(cluster);

/** A stand-in tool: waits `ms` (no CPU), records how long the wait really took, returns the content. */
function waitTool(ms: number, took: number[]): ToolImpl<'rename'> {
  return {
    needsLean: () => false,
    run: async (req) => {
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, ms));
      took.push(performance.now() - t0);
      return {
        content: req.content,
        lean_messages: { errors: [], warnings: [], infos: [] },
        tool_messages: { errors: [], warnings: [], infos: [] },
        timings: { total_ms: ms },
      } as never;
    },
  };
}

const body = (salt: number) => ({
  content: `theorem t${salt} : True := trivial\n`,
  environment: 'bench',
  reparse: false,
  declarations: { [`t${salt}`]: `u${salt}` },
});

export interface QueueFigures {
  workers: number;
  reqPerS: number;
  ideal: number;
  efficiency: number;
  /** A slot's cycle less the nominal 20 ms. */
  overheadMs: number;
  /** A slot's cycle less the waits' measured mean. */
  overheadBeyondWaitMs: number;
  waitMeanMs: number;
  latencyMs: ReturnType<typeof stats>;
  outside: number;
  noisy: boolean;
}

/** One worker count: its nodes built on `url`, warmed, measured, closed. */
async function measure(url: string, n: number, salt: () => number): Promise<QueueFigures> {
  const prefix = `queue${n}`;
  const took: number[] = [];
  const ws: FastifyInstance[] = [];
  const node = (role: string, id: string, extra = {}) =>
    config({ role, natsUrl: url, nodeId: `${prefix}${id}`, prefix, heartbeatMs: 250, ...extra });
  for (let i = 0; i < n; i++)
    ws.push(
      await buildApp({
        config: node('worker', `w${i}`, { workerSlots: 1 }),
        logger: false,
        tools: { rename: waitTool(JOB_MS, took) },
      }),
    );
  const f = await buildApp({ config: node('front', 'f'), logger: false });
  await f.listen({ host: '127.0.0.1', port: 0 });
  const p = poster(`http://127.0.0.1:${(f.server.address() as { port: number }).port}`, KEY);
  try {
    while ((f.cluster!.status().workers as unknown[]).length < n) await new Promise((r) => setTimeout(r, 50));
    const post = async (s: number) => (await p.post('/api/v1/rename', body(s))).status;
    await drive(
      Array.from({ length: 10 * n }, () => salt()),
      2 * n,
      post,
    );
    took.length = 0;
    const meter = cpuMeter();
    const jobs = PER_WORKER * n;
    const run = await drive(
      Array.from({ length: jobs }, () => salt()),
      2 * n,
      post,
    );
    const cpu = meter.stop();
    const reqPerS = jobs / run.seconds;
    const cycle = (1000 / reqPerS) * n;
    const waitMeanMs = stats(took).mean;
    return {
      workers: n,
      reqPerS: round(reqPerS, 1),
      ideal: (n * 1000) / JOB_MS,
      efficiency: round(reqPerS / ((n * 1000) / JOB_MS), 3),
      overheadMs: round(cycle - JOB_MS, 2),
      overheadBeyondWaitMs: round(cycle - waitMeanMs, 2),
      waitMeanMs: round(waitMeanMs, 2),
      latencyMs: stats(run.latencies),
      outside: cpu.outside,
      noisy: cpu.noisy,
    };
  } finally {
    p.close();
    await f.close();
    for (const w of ws) await w.close();
  }
}

/** The queue-only phase over its own nats-server (`bin`): figures, table rows and targets. */
export async function clusterQueuePhase(bin: string): Promise<{
  figures: QueueFigures[];
  rows: [string, string, string][];
  targets: TargetResult[];
}> {
  const nats = await startNatsServer(bin);
  let salt = 0;
  const figures: QueueFigures[] = [];
  try {
    for (const n of [1, 2, 4]) figures.push(await measure(nats.url, n, () => salt++));
  } finally {
    await nats.stop();
  }
  const rows = figures.map((q): [string, string, string] => [
    `queue only: ${q.workers} worker${q.workers > 1 ? 's' : ''}, ${JOB_MS} ms wait per job (no CPU)`,
    `${q.reqPerS} req/s (ideal ${q.ideal}, ${round(q.efficiency * 100, 1)}%)`,
    `fixed cost per job ${q.overheadMs} ms (${q.overheadBeyondWaitMs} ms beyond the waits' measured ${q.waitMeanMs} ms); ` +
      `p50 ${round(q.latencyMs.p50, 1)} ms; outside CPU ${round(q.outside * 100, 0)}%`,
  ]);
  const targets = figures.map((q) => ({
    target: `queue only, ${q.workers} worker${q.workers > 1 ? 's' : ''}: ≥ ${QUEUE_EFFICIENCY * 100}% of ideal on ${JOB_MS} ms jobs`,
    figure: `${round(q.efficiency * 100, 1)}% (fixed cost ${q.overheadMs} ms per job)`,
    pass: q.efficiency >= QUEUE_EFFICIENCY,
    noisy: q.noisy,
  }));
  return { figures, rows, targets };
}
