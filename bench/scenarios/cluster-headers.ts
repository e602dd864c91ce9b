/**
 * The cluster at many headers (issue 24): per worker count (1, 2, 4 in-process workers, one
 * slot each, a 5 ms Lean stand-in per job), throughput and JetStream API calls per second
 * while requests cycle through 10, then 1,000 distinct import headers, and the API calls per
 * second of the same workers idle afterwards; the front's added latency per job against the
 * stand-in's 5 ms (sequential requests, one client). API calls are the server's own count (`$JS.API.INFO` → `api.total`),
 * including the fronts' queue refresher and the measuring calls themselves.
 * The stand-in claims to need Lean, so jobs route by header (warm buckets, `any`) as Lean
 * jobs do; it produces no Lean result.
 */
import type { FastifyInstance } from 'fastify';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { buildApp } from '../../src/app.ts';
import type { ToolImpl } from '../../src/tools/types.ts';
import { natsServerPath, NO_NATS_REASON, startNatsServer } from '../../test/cluster/nats-server.ts';
import { drive, round, stats } from '../lib.ts';
import { benchClusterConfig } from './cluster-queue.ts';
import { poster } from './http-client.ts';

const KEY = 'bench-key-cluster-headers';
const JOB_MS = 5;
const REQUESTS = Number(process.env.BENCH_HEADER_REQUESTS ?? 1000);

/** A `check` stand-in that needs "Lean" (for routing) and waits JOB_MS. */
const waitCheck: ToolImpl<'check'> = {
  needsLean: () => true,
  run: async (req) => {
    await new Promise((r) => setTimeout(r, JOB_MS));
    return {
      okay: true,
      content: req.content,
      lean_messages: { errors: [], warnings: [], infos: [] },
      tool_messages: { errors: [], warnings: [], infos: [] },
      failed_declarations: [],
      timings: { total_ms: JOB_MS },
    } as never;
  },
};

const config = (cluster: object) => benchClusterConfig({ heartbeatMs: 250, ...cluster }, KEY);

export interface HeaderFigures {
  workers: number;
  headers: number;
  reqPerS: number;
  addedLatencyP50Ms: number;
  apiCallsPerSLoaded: number;
  apiCallsPerSIdle: number;
}

export async function clusterHeadersPhase(): Promise<HeaderFigures[] | string> {
  const bin = natsServerPath();
  if (!bin) return `skipped: ${NO_NATS_REASON}`;
  const nats = await startNatsServer(bin);
  const nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  const api = async () => (await jsm.getAccountInfo()).api.total;
  const out: HeaderFigures[] = [];
  let salt = 0;
  try {
    for (const n of [1, 2, 4]) {
      const prefix = `hdr${n}`;
      const apps: FastifyInstance[] = [];
      for (let i = 0; i < n; i++)
        apps.push(
          await buildApp({
            config: config({ role: 'worker', natsUrl: nats.url, nodeId: `${prefix}w${i}`, prefix, workerSlots: 1 }),
            logger: false,
            probe: () => ({ available: true }),
            tools: { check: waitCheck },
          }),
        );
      const front = await buildApp({
        config: config({ role: 'front', natsUrl: nats.url, nodeId: `${prefix}f`, prefix }),
        logger: false,
        probe: () => ({ available: false, reason: 'bench: the front runs no Lean' }),
      });
      apps.push(front);
      await front.listen({ host: '127.0.0.1', port: 0 });
      const p = poster(`http://127.0.0.1:${(front.server.address() as { port: number }).port}`, KEY);
      while ((front.cluster!.status().workers as unknown[]).length < n) await new Promise((r) => setTimeout(r, 50));
      for (const headers of [10, 1000]) {
        const req = (s: number) => ({
          content: `import H${s % headers}\n\ntheorem t${s} : True := trivial\n`,
          environment: 'bench',
          ignore_imports: false,
        });
        const a0 = await api();
        const run = await drive(
          Array.from({ length: REQUESTS }, () => salt++),
          2 * n,
          async (s) => (await p.post('/api/v1/check', req(s))).status,
        );
        const a1 = await api();
        await new Promise((r) => setTimeout(r, 3000));
        const a2 = await api();
        // One client at a time: the front's added latency without queueing behind other clients.
        const seq = await drive(
          Array.from({ length: 50 }, () => salt++),
          1,
          async (s) => (await p.post('/api/v1/check', req(s))).status,
        );
        out.push({
          workers: n,
          headers,
          reqPerS: round(REQUESTS / run.seconds, 1),
          addedLatencyP50Ms: round(stats(seq.latencies).p50 - JOB_MS, 2),
          apiCallsPerSLoaded: round((a1 - a0 - 1) / run.seconds, 1),
          apiCallsPerSIdle: round((a2 - a1 - 1) / 3, 1),
        });
      }
      p.close();
      for (const a of apps.reverse()) await a.close();
    }
  } finally {
    await nc.close();
    await nats.stop();
  }
  return out;
}
