/**
 * `node --import tsx bench/profile-miss.ts [requests] [outdir] [warmup]`: the daemon under
 * sequential cache misses (the miss-latency scenario's load) with `--cpu-prof`, to see where a
 * miss's CPU goes (diagnosis; not a scenario with a target). The profile covers the whole run,
 * the `warmup` requests (default 6,000 over 20 connections, as the scenario) included: V8 is still optimising the
 * miss path during them, so sum only the samples after them. Time spent in a syscall (the
 * writes to the REPL's pipe and to the client's socket) is wall time in a V8 profile, not CPU:
 * a write that wakes the other process often yields the core to it. `perf record -g` on the
 * daemon's pid (with BENCH_DAEMON_NODE_ARGS=--perf-basic-prof) counts CPU only.
 */
import path from 'node:path';
import { sequentialLatency, warmUp } from './load.ts';
import { benchEnvironment, BENCH_KEY, scratch, startDaemon } from './servers.ts';

const requests = Number(process.argv[2] ?? 3000);
const dir = path.resolve(process.argv[3] ?? path.join(scratch, 'profile-miss'));
const warmup = Number(process.argv[4] ?? 6000);
process.env.BENCH_DAEMON_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir} ${process.env.BENCH_DAEMON_NODE_ARGS ?? ''}`;
const daemon = await startDaemon(
  {
    keys: [{ key: BENCH_KEY, concurrency: 10_000 }],
    lean: { minWarm: 1, maxSessions: 1, maxUses: 1_000_000, maxStates: 1_000_000 },
    environments: [benchEnvironment],
  },
  { tag: 'profile-miss' },
);
await new Promise((r) => setTimeout(r, 1000));
const body = JSON.stringify({ content: 'example : [<id>] = [<id>] := rfl\n', environment: 'bench' });
await warmUp(`${daemon.url}/api/v1/check`, body, warmup);
const r = await sequentialLatency(`${daemon.url}/api/v1/check`, body, requests, 0, daemon.pid);
console.log(`daemon: p50 ${r.p50} ms, ${r.cpuUsPerReq} µs CPU/req, outside ${r.cpu.outside}`);
await daemon.stop();
console.log(`profile in ${dir}; requests: ${warmup} warm-up, then ${requests}`);
