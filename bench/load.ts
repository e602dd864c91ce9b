/**
 * Load generators, each in its own process (never in the daemon's): autocannon for
 * throughput, bench/latency-client.ts for one-at-a-time latency at microsecond resolution.
 * Every run records the outside CPU share while it ran.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { cores, cpuMeter, ownTicks, treeTicks, type CpuShare } from './proc.ts';
import { BENCH_DIR, BENCH_KEY } from './servers.ts';

const run = promisify(execFile);

export interface CannonRun {
  rps: number;
  /** CPU the server's process tree spent per answered request, µs (robust to outside load). */ cpuUsPerReq?: number;
  /** Share of the machine's CPU capacity (all cores) the server's process tree used meanwhile. */ serverShare?: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
  cpu: CpuShare;
}

export interface CannonOptions {
  /** The server's pid, to measure its CPU per request. */ pid?: number;
  seconds: number;
  connections: number;
  body: string;
  path?: string;
  uniqueIds?: boolean;
  cpus?: string;
}

export async function autocannon(url: string, o: CannonOptions): Promise<CannonRun> {
  const argv = [
    process.execPath,
    path.join(BENCH_DIR, 'cannon.mjs'),
    url + (o.path ?? '/api/v1/check'),
    BENCH_KEY,
    String(o.seconds),
    String(o.connections),
    o.body,
    o.uniqueIds ? '1' : '0',
  ];
  const meter = cpuMeter();
  const ticks0 = o.pid ? treeTicks(o.pid) : 0;
  const { stdout } = o.cpus
    ? await run('taskset', ['-c', o.cpus, ...argv], { maxBuffer: 1 << 26 })
    : await run(argv[0]!, argv.slice(1), { maxBuffer: 1 << 26 });
  const cpu = meter.stop();
  const serverTicks = o.pid ? treeTicks(o.pid) - ticks0 : 0;
  const r = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    errors: number;
    non2xx: number;
    duration: number;
    '2xx': number;
  };
  // Completed 2xx per second over the run (autocannon's average counts per-second buckets).
  return {
    ...(o.pid && r.requests.total ? { cpuUsPerReq: Math.round((serverTicks * 1e4) / r.requests.total) } : {}),
    // Ticks are 1/100 s (proc.ts); the capacity is every core over the run.
    ...(o.pid ? { serverShare: serverTicks / Math.max(1, cores() * cpu.seconds * 100) } : {}),
    rps: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    total: r.requests.total,
    cpu,
  };
}

export interface LatencyRun {
  /** CPU of the server's own process per request, µs (workers excluded). */ cpuUsPerReq?: number;
  n: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  statuses: Record<string, number>;
  cpu: CpuShare;
}

/** `n` sequential requests (body `[<id>]` replaced by a fresh id each), latencies in ms. */
export async function sequentialLatency(
  url: string,
  body: string,
  n: number,
  warmup: number,
  pid?: number,
): Promise<LatencyRun> {
  const meter = cpuMeter();
  // The warm-up requests are inside the CPU window: counted in the per-request figure too.
  const t0 = pid ? ownTicks(pid) : 0;
  const { stdout } = await run(
    process.execPath,
    [path.join(BENCH_DIR, 'latency-client.mjs'), url, BENCH_KEY, body, String(n), String(warmup)],
    { maxBuffer: 1 << 26 },
  );
  const ticks = pid ? ownTicks(pid) - t0 : 0;
  return {
    ...(JSON.parse(stdout) as Omit<LatencyRun, 'cpu'>),
    ...(pid ? { cpuUsPerReq: Math.round((ticks * 1e4) / (n + warmup)) } : {}),
    cpu: meter.stop(),
  };
}

/**
 * Unmeasured requests as a server in service has had them: `total` spread over `connections`
 * keep-alive connections, one after another, so that the measured rounds run code V8 has
 * finished optimising. Two things need both the count and the connections (traced with
 * `--trace-opt --trace-deopt` on the daemon under sequential misses): V8 optimises a function
 * run once per request only after a few thousand calls (after 3,000 misses ~40 functions were
 * still being compiled), and code that has seen one socket is specialised to its maps, so the
 * next connection (each measured round opens one) deoptimised ~20 socket and stream functions
 * and their recompilation fell inside the round: ~50 µs of compiler-thread CPU per miss (perf)
 * that a daemon which has served many connections does not spend. After 6,000 over 20
 * connections, a measured round of 2,000 compiled 5 functions and deoptimised none.
 */
export async function warmUp(url: string, body: string, total: number, connections = 20): Promise<void> {
  for (let c = 0; c < connections; c++) {
    const n = Math.round(((c + 1) * total) / connections) - Math.round((c * total) / connections);
    if (n > 0) await sequentialLatency(url, body, n, 0);
  }
}

export interface Sample<T> {
  round: number;
  target: string;
  result: T;
}

/**
 * A B A B … : each round runs every target once, in an order that rotates per round (so
 * none is always first), after one unmeasured warm-up run of each.
 */
export async function interleave<T>(
  targets: string[],
  rounds: number,
  runOne: (target: string, warm: boolean) => Promise<T>,
): Promise<Sample<T>[]> {
  for (const t of targets) await runOne(t, true);
  const out: Sample<T>[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
    for (const t of order) out.push({ round: r + 1, target: t, result: await runOne(t, false) });
  }
  return out;
}

export function spread(xs: number[]): { min: number; median: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { min: s[0] ?? 0, median, max: s.at(-1) ?? 0 };
}
