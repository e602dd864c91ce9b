/**
 * The daemon in front of a worker that burns a fixed CPU time per command (the fake REPL
 * test double with `BURN <ms>`: a stand-in for Lean whose cost is known exactly).
 *
 *  - miss throughput: `cores` sessions kept busy; the limit is cores ÷ per-command CPU;
 *  - added latency: one request at a time, latency minus the worker's burn time;
 *  - cache hits: autocannon (its own process) against /api/v1/check with a cached
 *    content, beside a bare fastify route returning the same body, in the same run.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { buildApp } from '../../src/app.ts';
import { buildLaunch, NO_LIMITS } from '../../src/backend/process/launch.ts';
import { configSchema } from '../../src/config.ts';
import { round, stats, type ScenarioResult } from '../lib.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FAKE = path.join(ROOT, 'test', 'fixtures', 'fake-repl.mjs');
const KEY = 'bench-key-0001';
const run = promisify(execFile);

interface Cannon { rps: number; p50: number; p99: number; errors: number; non2xx: number }

async function autocannon(url: string, body: string, seconds: number, connections: number): Promise<Cannon> {
  const bin = path.join(ROOT, 'node_modules', '.bin', 'autocannon');
  const { stdout } = await run(bin, ['-j', '-c', String(connections), '-d', String(seconds), '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${KEY}`, '-b', body, url], { maxBuffer: 1 << 26 });
  const r = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export async function leanPathScenario(opts: { burnMs?: number; seconds?: number } = {}): Promise<ScenarioResult> {
  const cores = os.cpus().length;
  const burnMs = opts.burnMs ?? 50;
  const seconds = opts.seconds ?? 10;
  const config = configSchema.parse({
    keys: [{ key: KEY, concurrency: 10_000 }],
    admission: { keyQueueLimit: 1_000_000 },
    lean: { minWarm: cores, maxSessions: cores, maxUses: 1_000_000, prefixEntries: 100 },
    environments: [{ name: 'bench', lean_toolchain: 'leanprover/lean4:v4.28.0', imports: 'import Mathlib', project_dir: path.dirname(FAKE) }],
  });
  const app = await buildApp({
    config, logger: false, probe: () => ({ available: true }),
    launch: (e) => buildLaunch({ ...e, repl_command: [process.execPath, FAKE] }, { limits: NO_LIMITS, sandbox: 'none' }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  // A plain keep-alive http client: fetch (undici) alone adds ~0.5 ms per request on this machine.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const port = (app.server.address() as { port: number }).port;
  const post = (content: string) => new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ content, environment: 'bench' });
    const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/check', method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });

  // Warm every session.
  for (let i = 0; i < 200; i++) {
    const s = (await (await fetch(`${base}/v1/status`)).json()) as { pools: Record<string, { idle: number }> };
    if ((s.pools.bench?.idle ?? 0) >= cores) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  // 1. Miss throughput with every session busy (unique command text: no cache, no prefix reuse).
  let n = 0;
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: cores * 3 }, async () => {
    while (performance.now() < until) {
      const status = await post(`BURN ${burnMs} ${n++}\n`);
      if (status !== 200) errors++;
    }
  }));
  const elapsed = (performance.now() - t0) / 1000;
  const completed = n;
  const throughput = completed / elapsed;
  const limit = (cores * 1000) / burnMs;

  // 2. Added latency on a miss: one at a time, with a worker that does no work (BURN 0), so the
  //    whole latency is what the daemon and the worker round trip add (a timed burn is only ms-precise).
  const sequential = 200;
  const seqBurn = 0;
  const added: number[] = [];
  for (let i = 0; i < sequential; i++) {
    const s = performance.now();
    await post(`BURN ${seqBurn} seq${i}\n`);
    added.push(performance.now() - s - seqBurn);
  }
  const lat = stats(added);

  // 3. Cache hits vs a bare fastify route returning the same body.
  const hitBody = JSON.stringify({ content: 'def cached := 1\n', environment: 'bench' });
  const cachedResponse = await (await fetch(`${base}/api/v1/check`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: hitBody })).json();
  const bare = Fastify();
  bare.post('/api/v1/check', async () => cachedResponse);
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/api/v1/check`;
  const hitSeconds = Math.max(3, Math.round(seconds / 2));
  const bareRun = await autocannon(bareUrl, hitBody, hitSeconds, 50);
  const hitRun = await autocannon(`${base}/api/v1/check`, hitBody, hitSeconds, 50);
  await bare.close();
  const status = (await (await fetch(`${base}/v1/status`)).json()) as { cache: { hits: number; misses: number } };
  agent.destroy();
  await app.close();

  const fraction = throughput / limit;
  const hitRatio = hitRun.rps / bareRun.rps;
  return {
    name: 'lean-path',
    summary: `miss throughput ${round(fraction * 100, 1)}% of the ${round(limit, 1)} req/s limit (target ≥ 95%); added latency p50 ${round(lat.p50, 2)} ms (target ≤ 1); cache hits ${round(hitRatio * 100, 1)}% of a bare route (target ≥ 80%)`,
    figures: { cores, burnMs, seconds, completed, errors, throughput: round(throughput, 2), limit: round(limit, 2), fraction: round(fraction, 4), addedLatencyMs: lat, hits: hitRun, bare: bareRun, hitRatio: round(hitRatio, 3), cache: status.cache },
    table: [
      ['worker', `fake REPL burning ${burnMs} ms CPU per command, ${cores} sessions`, `${cores} cores`],
      ['miss throughput', `${round(throughput, 2)} req/s`, `limit cores ÷ CPU = ${round(limit, 2)} req/s`],
      ['fraction of the limit', `${round(fraction * 100, 1)}%`, 'target ≥ 95%'],
      ['miss errors', String(errors), `${completed} requests over ${round(elapsed, 1)} s`],
      ['added latency per miss p50 / p99', `${round(lat.p50, 2)} / ${round(lat.p99, 2)} ms`, `${sequential} sequential requests to a worker doing no work: HTTP + validation + admission + REPL round trip; target p50 ≤ 1 ms`],
      ['cache hits (autocannon, 50 conns)', `${round(hitRun.rps)} req/s, p50 ${hitRun.p50} ms, p99 ${hitRun.p99} ms`, `${hitRun.non2xx} non-2xx`],
      ['bare fastify route, same body', `${round(bareRun.rps)} req/s, p50 ${bareRun.p50} ms`, 'same run, same machine'],
      ['cache hits ÷ bare route', `${round(hitRatio * 100, 1)}%`, 'target ≥ 80%'],
    ],
  };
}
