/**
 * Scale-out on loopback: a front (this process) and 1, 2 and 4 worker processes (the real
 * daemon, `LEAN_TOOL_ROLE=worker`, one slot each) over a real nats-server with JetStream.
 * The workload is CPU-bound and needs no Lean: rename of every theorem of a generated file
 * of a few hundred theorems, `reparse: false`, every request unique (no cache hits anywhere).
 * Figures: throughput per worker count and scaling efficiency against one worker; and the
 * front's added latency per request against the single-machine daemon (sequential requests).
 * Read the efficiency against the machine's core count: the front, NATS and the workers
 * share those cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { natsServerPath, NO_NATS_REASON, startNatsServer } from '../../test/cluster/nats-server.ts';
import { drive, round, stats, type ScenarioResult } from '../lib.ts';
import { clusterHeadersPhase } from './cluster-headers.ts';
import { benchClusterConfig, clusterQueuePhase } from './cluster-queue.ts';
import { poster } from './http-client.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY = 'bench-key-cluster';
const ENV = { name: 'bench', lean_toolchain: 'leanprover/lean4:v4.28.0', imports: '', project_dir: '/nonexistent' };
const THEOREMS = Number(process.env.BENCH_CLUSTER_THEOREMS ?? 300);
const REQUESTS = Number(process.env.BENCH_CLUSTER_REQUESTS ?? 160);

/** A Lean file of `n` theorems with tactic proofs (synthetic: the work is the source model's). */
function workload(n: number, salt: number): string {
  const parts = [`-- request ${salt}\n`];
  for (let i = 0; i < n; i++)
    parts.push(
      `theorem t${i}_${salt} (a b : Nat) (h : a ≤ b) : a ≤ b + ${i} := by\n  have h2 : b ≤ b + ${i} := Nat.le_add_right b ${i}\n  exact Nat.le_trans h h2\n\n`,
    );
  return parts.join('');
}
/** CPU milliseconds (user + system) a process has used, from /proc/<pid>/stat (0 where there is no /proc). */
function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks: 100 per second on Linux
  } catch {
    return 0;
  }
}
/** rename of every theorem (reparse false): the heaviest structural tool per byte sent, so the work sits in the workers. */
const body = (salt: number, n = THEOREMS) => ({
  content: workload(n, salt),
  environment: 'bench',
  reparse: false,
  declarations: Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}_${salt}`, `u${i}_${salt}`])),
});

async function listen(app: FastifyInstance) {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return poster(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`, KEY);
}

function startWorker(url: string, id: string, overlay: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      LEAN_TOOL_ROLE: 'worker',
      NATS_URL: url,
      LEAN_TOOL_NODE_ID: id,
      LEAN_TOOL_WORKER_SLOTS: '1',
      PORT: '0',
      LEAN_TOOL_CONFIG: overlay,
      LOG_LEVEL: 'warn',
    },
  });
}

export async function clusterScenario(): Promise<ScenarioResult> {
  const bin = natsServerPath();
  if (!bin)
    return { name: 'cluster', summary: `skipped: ${NO_NATS_REASON}`, figures: { skipped: NO_NATS_REASON }, table: [] };
  const rows: [string, string, string][] = [];
  const figures: Record<string, unknown> = { theorems: THEOREMS, requests: REQUESTS, cores: os.cpus().length };
  let salt = 0;

  // Single machine (no NATS): the reference for added latency.
  const single = await buildApp({
    config: benchClusterConfig({}),
    logger: false,
    probe: () => ({ available: false, reason: 'benchmark: no Lean' }),
  });
  const sp = await listen(single);
  for (let i = 0; i < 10; i++) await sp.post('/api/v1/rename', body(salt++));
  const seqSingleHeavy = (
    await drive(
      Array.from({ length: 40 }, () => salt++),
      1,
      async (s) => (await sp.post('/api/v1/rename', body(s))).status,
    )
  ).latencies;
  const seqSingleLight = (
    await drive(
      Array.from({ length: 200 }, () => salt++),
      1,
      async (s) => (await sp.post('/api/v1/rename', body(s, 1))).status,
    )
  ).latencies;
  const singleRun = await drive(
    Array.from({ length: REQUESTS }, () => salt++),
    4,
    async (s) => (await sp.post('/api/v1/rename', body(s))).status,
  );
  sp.close();
  await single.close();

  const nats = await startNatsServer(bin);
  const dir = mkdtempSync(path.join(tmpdir(), 'lean-tool-bench-'));
  const overlay = path.join(dir, 'local.json');
  writeFileSync(
    overlay,
    JSON.stringify({
      cache: { maxBytes: 0 },
      lean: { minWarm: 0 },
      environments: [ENV],
      cluster: { heartbeatMs: 250 },
    }),
  );
  const front = await buildApp({
    config: benchClusterConfig({ role: 'front', natsUrl: nats.url, nodeId: 'front', heartbeatMs: 250 }),
    logger: false,
  });
  const fp = await listen(front);
  const workers: ChildProcess[] = [];
  const throughput: Record<number, number> = {};
  try {
    for (const n of [1, 2, 4]) {
      while (workers.length < n) workers.push(startWorker(nats.url, `w${workers.length}`, overlay));
      const deadline = Date.now() + 60_000;
      while ((front.cluster!.status().workers as unknown[]).length < n) {
        if (Date.now() > deadline)
          throw new Error(`only ${(front.cluster!.status().workers as unknown[]).length} of ${n} workers joined`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // Warm every worker's JIT before measuring.
      await drive(
        Array.from({ length: 8 * n }, () => salt++),
        2 * n,
        async (s) => (await fp.post('/api/v1/rename', body(s))).status,
      );
      if (n === 1) {
        figures.seqFrontHeavy = stats(
          (
            await drive(
              Array.from({ length: 40 }, () => salt++),
              1,
              async (s) => (await fp.post('/api/v1/rename', body(s))).status,
            )
          ).latencies,
        );
        figures.seqFrontLight = stats(
          (
            await drive(
              Array.from({ length: 200 }, () => salt++),
              1,
              async (s) => (await fp.post('/api/v1/rename', body(s, 1))).status,
            )
          ).latencies,
        );
      }
      // Twice as many clients as worker slots: every worker always has its next job queued.
      const wcpu0 = workers.reduce((a, w) => a + procCpuMs(w.pid!), 0);
      const cpu0 = process.cpuUsage();
      const run = await drive(
        Array.from({ length: REQUESTS }, () => salt++),
        2 * n,
        async (s) => (await fp.post('/api/v1/rename', body(s))).status,
      );
      const cpu = process.cpuUsage(cpu0);
      const workerCpuMs = (workers.reduce((a, w) => a + procCpuMs(w.pid!), 0) - wcpu0) / REQUESTS;
      // CPU the workers spent per job, and the share of the run's wall time the cluster's processes got.
      figures[`workerCpuMsPerRequest${n}`] = round(workerCpuMs, 2);
      figures[`cpuCoresUsed${n}`] = round(
        (workerCpuMs * REQUESTS + (cpu.user + cpu.system) / 1000) / 1000 / run.seconds,
        2,
      );
      // This process is the front and the load generator: an upper bound on the front's CPU per job.
      const frontCpuMs = (cpu.user + cpu.system) / 1000 / REQUESTS;
      figures[`frontCpuMsPerRequest${n}`] = round(frontCpuMs, 2);
      if (n === 1)
        rows.push([
          'front + load generator CPU per request',
          `${round(frontCpuMs, 2)} ms`,
          `${THEOREMS}-theorem requests (~${Math.round(JSON.stringify(body(0)).length / 1024)} KiB); the workers' CPU is not in it`,
        ]);
      const ok = run.statuses.get(200) ?? 0;
      throughput[n] = REQUESTS / run.seconds;
      const lat = stats(run.latencies);
      figures[`workers${n}`] = {
        seconds: round(run.seconds),
        reqPerS: round(throughput[n]!, 2),
        latencyMs: lat,
        statuses: Object.fromEntries(run.statuses),
      };
      const eff = throughput[n]! / (n * throughput[1]!);
      rows.push([
        `${n} worker process${n > 1 ? 'es' : ''} (1 slot each), ${2 * n} clients`,
        `${round(throughput[n]!, 1)} req/s; p50 ${round(lat.p50, 1)} ms`,
        `scaling efficiency ${round(eff * 100, 0)}% of ${n}× one worker; worker CPU ${round(workerCpuMs, 1)} ms/job; cores used ${figures[`cpuCoresUsed${n}`] as number}; ${ok}/${REQUESTS} ok`,
      ]);
      figures[`efficiency${n}`] = round(eff, 3);
    }
  } finally {
    for (const w of workers) w.kill('SIGTERM');
    fp.close();
    await front.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  // The queue alone: workers in this process whose job is a 20 ms wait (no CPU), so the
  // figures show what the distribution costs and how it scales when cores are not the limit.
  const queue = await clusterQueuePhase(bin);
  figures.queue = queue.figures;
  rows.push(...queue.rows);

  const headerFigures = await clusterHeadersPhase();
  figures.headers = headerFigures;
  if (typeof headerFigures !== 'string')
    for (const h of headerFigures)
      rows.push([
        `${h.workers} worker${h.workers > 1 ? 's' : ''}, ${h.headers} distinct headers, 5 ms Lean stand-in`,
        `${h.reqPerS} req/s; front adds p50 ${h.addedLatencyP50Ms} ms`,
        `JetStream API calls/s: ${h.apiCallsPerSLoaded} under load, ${h.apiCallsPerSIdle} idle`,
      ]);
  const singleThr = REQUESTS / singleRun.seconds;
  figures.singleMachine = { reqPerS: round(singleThr, 2), latencyMs: stats(singleRun.latencies) };
  rows.push(['single machine (no NATS), 4 clients', `${round(singleThr, 1)} req/s`, 'in-process tools, same workload']);
  const sh = stats(seqSingleHeavy),
    fh = figures.seqFrontHeavy as ReturnType<typeof stats>;
  const sl = stats(seqSingleLight),
    fl = figures.seqFrontLight as ReturnType<typeof stats>;
  figures.seqSingleHeavy = sh;
  figures.seqSingleLight = sl;
  rows.push([
    `added latency, ${THEOREMS}-theorem request (sequential)`,
    `p50 ${round(fh.p50 - sh.p50, 2)} ms`,
    `front+1 worker p50 ${round(fh.p50, 2)} ms vs single ${round(sh.p50, 2)} ms`,
  ]);
  rows.push([
    'added latency, 1-theorem request (sequential)',
    `p50 ${round(fl.p50 - sl.p50, 2)} ms`,
    `front+1 worker p50 ${round(fl.p50, 2)} / p95 ${round(fl.p95, 2)} ms vs single ${round(sl.p50, 2)} / ${round(sl.p95, 2)} ms`,
  ]);
  const summary = `cluster on ${os.cpus().length} cores: ${[1, 2, 4].map((n) => `${n}w ${round(throughput[n]!, 1)} req/s`).join(', ')}; efficiency 2w ${round((figures.efficiency2 as number) * 100, 0)}%, 4w ${round((figures.efficiency4 as number) * 100, 0)}%; added latency p50 ${round(fl.p50 - sl.p50, 2)} ms (small request)`;
  return { name: 'cluster', summary, figures, table: rows, targets: queue.targets };
}
