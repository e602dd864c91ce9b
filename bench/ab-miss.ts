/**
 * `node --import tsx bench/ab-miss.ts <base checkout> [rounds] [requests] [warmup]`: the miss-latency
 * load (sequential misses on a worker doing nothing) on two daemons at once, the base checkout's
 * (for example `git worktree add /tmp/base main`, or `git archive <commit> | tar -x -C /tmp/base`
 * with a node_modules link) and this one's, A B interleaved with the order turned each round,
 * after the same warm-up on each. Prints each round's CPU per miss of each daemon's own process
 * and its p50 beside the machine's load: a change is compared with its base in one run, round by
 * round, since on a shared machine single rounds vary by ±50 µs per miss (diagnosis; not a
 * scenario with a target).
 */
import { execSync } from 'node:child_process';
import path from 'node:path';
import { sequentialLatency, warmUp } from './load.ts';
import * as here from './servers.ts';

const baseDir = path.resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('usage: bench/ab-miss.ts <base checkout> [rounds] [requests] [warmup]');
const rounds = Number(process.argv[3] ?? 8);
const requests = Number(process.argv[4] ?? 1500);
const warmup = Number(process.argv[5] ?? 6000);
const base = (await import(path.join(baseDir, 'bench/servers.ts'))) as typeof here;

const overlay = (s: typeof here) => ({
  keys: [{ key: s.BENCH_KEY, concurrency: 10_000 }],
  lean: { minWarm: 1, maxSessions: 1, maxUses: 1_000_000, maxStates: 1_000_000 },
  environments: [s.benchEnvironment],
});
const servers = {
  base: await base.startDaemon(overlay(base), { tag: 'ab-base' }),
  candidate: await here.startDaemon(overlay(here), { tag: 'ab-candidate' }),
};
await new Promise((r) => setTimeout(r, 1000)); // sessions warm
const body = JSON.stringify({ content: 'example : [<id>] = [<id>] := rfl\n', environment: 'bench' });
const names = Object.keys(servers) as (keyof typeof servers)[];
for (const n of names) await warmUp(`${servers[n].url}/api/v1/check`, body, warmup);
const cpu: Record<string, number[]> = { base: [], candidate: [] };
const p50: Record<string, number[]> = { base: [], candidate: [] };
for (let r = 0; r < rounds; r++) {
  for (const n of r % 2 ? [...names].reverse() : names) {
    const x = await sequentialLatency(`${servers[n].url}/api/v1/check`, body, requests, 20, servers[n].pid);
    cpu[n]!.push(x.cpuUsPerReq ?? 0);
    p50[n]!.push(Math.round(x.p50 * 1000) / 1000);
  }
}
await servers.base.stop();
await servers.candidate.stop();
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
console.log(
  `load ${execSync('cat /proc/loadavg').toString().trim()}; ${rounds} rounds of ${requests} misses after ${warmup}`,
);
for (const n of names)
  console.log(
    `${n}: CPU µs/miss ${cpu[n]!.join(' ')} (median ${median(cpu[n]!)}); p50 ms ${p50[n]!.join(' ')} (median ${median(p50[n]!)})`,
  );
const diffs = cpu.candidate!.map((c, i) => c - cpu.base![i]!);
console.log(`candidate − base per round: ${diffs.join(' ')} µs (median ${median(diffs)})`);
