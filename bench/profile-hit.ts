/**
 * `node --import tsx bench/profile-hit.ts [seconds] [outdir]`: the daemon under cache hits with
 * `--cpu-prof`, to see where a hit's CPU goes (diagnosis; not a scenario with a target).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { autocannon } from './load.ts';
import { benchEnvironment, BENCH_KEY, post, scratch, startBareFastify, startDaemon } from './servers.ts';
import { sampleContent } from './scenarios/hit-path.ts';
import { selfTimePerRequest } from './profile-summary.ts';

const seconds = Number(process.argv[2] ?? 5);
const dir = path.resolve(process.argv[3] ?? path.join(scratch, 'profile'));
process.env.BENCH_DAEMON_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${path.join(dir, 'daemon')} ${process.env.BENCH_DAEMON_NODE_ARGS ?? ''}`;
process.env.BENCH_BARE_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${path.join(dir, 'bare')}`;
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
const total = new Map<string, number>();
for (const s of [daemon, bare, daemon, bare, daemon, bare]) {
  const r = await autocannon(s.url, { seconds, connections: 20, body, pid: s.pid });
  total.set(s.name, (total.get(s.name) ?? 0) + r.total);
  console.log(`${s.name}: ${Math.round(r.rps)} req/s, ${r.cpuUsPerReq} µs CPU/req, outside ${r.cpu.outside}`);
}
await daemon.stop();
await bare.stop();
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
