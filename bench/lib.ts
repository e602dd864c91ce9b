/** Benchmark helpers: timing with warm-up, summary statistics, machine facts. */
import os from 'node:os';
import { treeRss } from '../src/backend/process/rss.ts';

export interface Stats {
  n: number;
  mean: number;
  sd: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, n);
  const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, n - 1));
  const q = (p: number) => s[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))] ?? 0;
  return { n, mean, sd, min: s[0] ?? 0, p50: q(0.5), p95: q(0.95), p99: q(0.99), max: s[n - 1] ?? 0 };
}

/** Run `fn` `warmup` times unmeasured, then `runs` times; returns each run's milliseconds. */
export function timeRuns(fn: () => void, runs: number, warmup = 2): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export function machine() {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
  };
}

export const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

export interface ScenarioResult {
  name: string;
  summary: string;
  figures: Record<string, unknown>;
  /** Markdown table rows: [metric, value, note]. */
  table: [string, string, string][];
  /** Each target of the issue this scenario measures, judged on this run's figures. */
  targets?: TargetResult[];
  /** The rounds behind the figures: [round, target, figure, outside CPU share, noisy]. */
  rounds?: string[][];
  /** Header of `rounds`. */
  roundsHeader?: string[];
}

/** A scenario that cannot run here (its data set is absent), with the reason in its summary. */
export const skipped = (name: string, reason: string): ScenarioResult => ({
  name,
  summary: `skipped: ${reason}`,
  figures: { skipped: reason },
  table: [['skipped', reason, '']],
});

export interface TargetResult {
  target: string;
  figure: string;
  pass: boolean;
  /** True when other processes used more than the noisy share of the machine during the run. */
  noisy: boolean;
  /** Not measured here (a baseline or data set is absent): reads SKIP, never FAIL. */
  skipped?: boolean;
}

export const pct = (x: number, d = 1) => `${round(x * 100, d)}%`;

/** Samples the peak resident memory of this process and of its descendants (the workers). */
export function rssSampler(everyMs = 100): { stop: () => { daemonPeakMb: number; workersPeakMb: number } } {
  let daemon = process.memoryUsage().rss;
  let workers = 0;
  const sample = () => {
    daemon = Math.max(daemon, process.memoryUsage().rss);
    workers = Math.max(workers, treeRss(process.pid) - process.memoryUsage().rss);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      sample();
      clearInterval(timer);
      return { daemonPeakMb: round(daemon / 2 ** 20, 1), workersPeakMb: round(workers / 2 ** 20, 1) };
    },
  };
}

/** Latency-recording loop: `concurrency` workers take items until none are left. */
export async function drive<T>(
  items: T[],
  concurrency: number,
  fn: (item: T) => Promise<number>,
): Promise<{ latencies: number[]; statuses: Map<number, number>; seconds: number }> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const s = performance.now();
        const status = await fn(item);
        latencies.push(performance.now() - s);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return { latencies, statuses, seconds: (performance.now() - t0) / 1000 };
}
