/**
 * What else ran on the machine during a measurement: busy CPU time from /proc/stat minus
 * the CPU time of this bench's own process tree (daemon, workers, baselines, load
 * generators; reaped children are counted through their parents' cutime/cstime).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { processTree } from '../src/backend/process/rss.ts';

/** Above this share of the machine used by other processes, a run is flagged noisy. */
export const NOISY_SHARE = 0.1;

interface Snapshot {
  at: number;
  busy: number;
  all: number;
  ours: number;
}

function machineTicks(): { busy: number; all: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const all = f.reduce((a, b) => a + b, 0);
  return { busy: all - f[3]! - f[4]!, all };
}

/** CPU ticks (1/100 s) used so far by `root` and its descendants, reaped ones included. */
export function treeTicks(root: number): number {
  let t = 0;
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      t += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // utime stime cutime cstime
    } catch {
      // gone between listing and reading
    }
  }
  return t;
}

/** CPU ticks (1/100 s) used so far by one process (its threads included, its children not). */
export function ownTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

function snapshot(root: number): Snapshot {
  return { at: performance.now(), ...machineTicks(), ours: treeTicks(root) };
}

export interface CpuShare {
  seconds: number;
  /** Share of the machine's CPU capacity (all cores) used by this bench's processes. */
  ours: number;
  /** Share of the machine's CPU capacity used by every other process. */
  outside: number;
  noisy: boolean;
}

/** Starts measuring; `stop()` gives the shares over the interval. */
export function cpuMeter(root = process.pid): { stop: () => CpuShare } {
  const a = snapshot(root);
  return {
    stop: () => {
      const b = snapshot(root);
      const all = Math.max(1, b.all - a.all);
      const ours = Math.max(0, b.ours - a.ours) / all;
      const outside = Math.max(0, (b.busy - a.busy) / all - ours);
      return {
        seconds: (b.at - a.at) / 1000,
        ours: round4(ours),
        outside: round4(outside),
        noisy: outside > NOISY_SHARE,
      };
    },
  };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** Cores this machine has (the CPU limit of the orchestration scenario). */
export const cores = () => os.cpus().length;
