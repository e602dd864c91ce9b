/**
 * `node --import tsx bench/profile-hit.ts [seconds] [outdir] [--perf]`: the daemon and the bare
 * fastify route under cache hits, profiled, to see where a hit's CPU goes (diagnosis; not a
 * scenario with a target). By default with V8's `--cpu-prof` (self time per function; wall-clock
 * samples, so on a loaded machine a thread descheduled in `writev` is counted there); with
 * `--perf`, `perf record -a -g` during each run (CPU only, kernel and helper threads included),
 * summed per activity (bench/perf-summary.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { autocannon } from './load.ts';
import { cpuByActivity } from './perf-summary.ts';
import { selfTimePerRequest } from './profile-summary.ts';
import { sampleContent } from './scenarios/hit-path.ts';
import { benchEnvironment, BENCH_KEY, post, scratch, startBareFastify, startDaemon, type Server } from './servers.ts';

const args = process.argv.slice(2).filter((a) => a !== '--perf');
const usePerf = process.argv.includes('--perf');
const seconds = Number(args[0] ?? 5);
const dir = path.resolve(args[1] ?? path.join(scratch, 'profile'));
const PERF_HZ = 1999;
mkdirSync(dir, { recursive: true });
const prof = (sub: string) => (usePerf ? '--perf-basic-prof' : `--cpu-prof --cpu-prof-dir=${path.join(dir, sub)}`);
process.env.BENCH_DAEMON_NODE_ARGS = `${prof('daemon')} ${process.env.BENCH_DAEMON_NODE_ARGS ?? ''}`;
process.env.BENCH_BARE_NODE_ARGS = prof('bare');
const daemon = await startDaemon(
  { keys: [{ key: BENCH_KEY, concurrency: 10_000 }], environments: [benchEnvironment] },
  { tag: 'profile' },
);
const body = JSON.stringify({ content: sampleContent(), environment: 'bench' });
await post(`${daemon.url}/api/v1/check`, body);
const hit = await post(`${daemon.url}/api/v1/check`, body);
const responseFile = path.join(scratch, 'hit-response.json');
writeFileSync(responseFile, hit.body);
const bare = await startBareFastify(responseFile);
if (usePerf) await perfRuns([daemon, bare]);
else await cpuProfRuns();
await daemon.stop();
await bare.stop();

/** One run of each target under `perf record -a -g` (after a warm-up), summed per activity. */
async function perfRuns(servers: Server[]): Promise<void> {
  for (const s of servers) await autocannon(s.url, { seconds: 3, connections: 50, body, pid: s.pid });
  for (const s of servers) {
    const data = path.join(dir, `${s.name.replace(/\W+/g, '-')}.perf.data`);
    const rec = spawn(
      'perf',
      ['record', '-F', String(PERF_HZ), '-g', '-a', '-o', data, '--', 'sleep', String(seconds)],
      {
        stdio: 'ignore',
      },
    );
    const recorded = new Promise((resolve) => rec.once('exit', resolve));
    // autocannon runs a second longer than perf records: the requests perf saw are a share of its total.
    const r = await autocannon(s.url, { seconds: seconds + 1, connections: 50, body, pid: s.pid });
    await recorded;
    const requests = (r.total * seconds) / (seconds + 1);
    console.log(
      `\n${s.name}: ${Math.round(r.rps)} req/s, ${r.cpuUsPerReq} µs CPU/req (/proc), outside ${r.cpu.outside}`,
    );
    for (const line of cpuByActivity(data, s.pid, PERF_HZ, requests)) console.log(`  ${line}`);
  }
}

async function cpuProfRuns(): Promise<void> {
  const total = new Map<string, number>();
  for (const s of [daemon, bare, daemon, bare, daemon, bare]) {
    const r = await autocannon(s.url, { seconds, connections: 20, body, pid: s.pid });
    total.set(s.name, (total.get(s.name) ?? 0) + r.total);
    console.log(`${s.name}: ${Math.round(r.rps)} req/s, ${r.cpuUsPerReq} µs CPU/req, outside ${r.cpu.outside}`);
  }
  console.log(`profiles in ${dir}/{daemon,bare}; requests answered: ${JSON.stringify(Object.fromEntries(total))}`);
  for (const [name, sub] of [
    ['daemon', 'daemon'],
    ['bare fastify', 'bare'],
  ] as const) {
    // The main thread's profile is the first one written (worker threads write theirs after).
    const file = readdirSync(path.join(dir, sub))
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort()[0];
    if (!file) continue;
    console.log(`\n${name}:`);
    for (const line of selfTimePerRequest(path.join(dir, sub, file), total.get(name) ?? 1)) console.log(`  ${line}`);
  }
}
