/** A process tree's members, resident memory and CPU time, from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

/** Children of every thread of `pid` (a child forked by a non-main thread is listed under that thread). */
function children(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      const c = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
      if (c) out.push(...c.split(/\s+/).map(Number));
    } catch {
      // thread gone
    }
  }
  return out;
}

/** `pid` and all its descendants. */
export function processTree(pid: number): number[] {
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    stack.push(...children(p));
  }
  return [...seen];
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used. */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

export interface TreeUsage {
  processes: number;
  rssBytes: number;
  cpuSeconds: number;
}

export function treeUsage(pid: number): TreeUsage {
  let processes = 0;
  let rssBytes = 0;
  let cpuSeconds = 0;
  for (const p of processTree(pid)) {
    const rss = rssOf(p);
    // A pid that is gone still appears once (the root): count only live ones.
    if (rss > 0 || p === pid) processes++;
    rssBytes += rss;
    cpuSeconds += cpuOf(p);
  }
  return { processes, rssBytes, cpuSeconds };
}

/**
 * treeUsage for one process, with the tree's membership (one directory listing and one read
 * per thread of every member) kept for up to `membershipMs`: the usage read after every
 * request then costs a read of each member's status and stat, ~a fifth of a full scan (the
 * scan was ~20% of the daemon's CPU per cache miss). A full scan (`fresh`) refreshes it; the
 * watchdog does one every poll, so a process started since is seen within a poll interval.
 */
export class TreeUsageReader {
  #members: number[] = [];
  #scannedAt = -Infinity;

  constructor(
    readonly pid: number,
    private readonly membershipMs = 1000,
  ) {}

  read(fresh = false): TreeUsage {
    const now = performance.now();
    if (fresh || now - this.#scannedAt > this.membershipMs) {
      this.#members = processTree(this.pid);
      this.#scannedAt = now;
    }
    let processes = 0;
    let rssBytes = 0;
    let cpuSeconds = 0;
    for (const p of this.#members) {
      const rss = rssOf(p);
      if (rss > 0 || p === this.pid) processes++;
      rssBytes += rss;
      cpuSeconds += cpuOf(p);
    }
    return { processes, rssBytes, cpuSeconds };
  }
}

/** Bytes; 0 when the process is gone or /proc is unavailable. */
export function treeRss(pid: number): number {
  return processTree(pid).reduce((a, p) => a + rssOf(p), 0);
}
