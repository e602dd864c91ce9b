/** A process tree's members, resident memory and CPU time, from /proc (Linux). */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import os from 'node:os';

/**
 * The fastest a process tree's resident memory can grow, in bytes per millisecond: 32 GiB/s for
 * each CPU the tree may run on (the daemon's, which its children inherit), 64 GiB/s on two.
 * Resident memory grows as the kernel maps pages into the tree, each on a fault taken by one of
 * the tree's threads, on a CPU; a new anonymous page (what a REPL accumulates: environments,
 * states, caches) is zeroed first, a write of the whole page, and one CPU writes memory at
 * ~10–20 GB/s (a core's store bandwidth on current x86 and ARM servers), so 32 GiB/s a CPU is
 * generous. File pages mapped without a write (the .olean files a process maps) are not bound by
 * it: a command that faulted those in faster could be seen past the soft threshold one request
 * late. The soft threshold only decides a retirement between requests; the hard cap is the
 * watchdog's, read afresh every poll, and does not depend on this figure.
 */
export const RSS_GROWTH_BYTES_PER_MS = ((32 * 2 ** 30) / 1000) * os.availableParallelism();

/**
 * Whether resident memory read as `bytes`, `elapsedMs` ago, may now be above `bound`: if not,
 * a decision "above `bound` or not" made on that reading is the one a fresh reading would give.
 */
export function mayExceed(bytes: number, elapsedMs: number, bound: number): boolean {
  return bytes + elapsedMs * RSS_GROWTH_BYTES_PER_MS > bound;
}

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

/** The kernel's page size (AT_PAGESZ, type 6, in /proc/self/auxv): /proc/<pid>/stat counts RSS in pages. */
let pageBytes: number | undefined;
function pageSize(): number {
  if (pageBytes !== undefined) return pageBytes;
  pageBytes = 4096;
  try {
    const auxv = readFileSync('/proc/self/auxv');
    const le = os.endianness() === 'LE';
    const word = (at: number) => Number(le ? auxv.readBigUInt64LE(at) : auxv.readBigUInt64BE(at));
    for (let i = 0; i + 16 <= auxv.length && word(i) !== 0; i += 16) {
      if (word(i) === 6) {
        pageBytes = word(i + 8);
        break;
      }
    }
  } catch {
    // no /proc/self/auxv: the common page size
  }
  return pageBytes;
}

interface StatUsage {
  rssBytes: number;
  cpuSeconds: number;
}

/**
 * Resident memory and CPU time from one /proc/<pid>/stat line [proc(5)]: fields after the
 * `(comm)` are state (3), …, utime (14), stime (15), …, rss (24, pages), the same count as
 * status's VmRSS (both get_mm_rss); a zombie has none. undefined: not a stat line.
 */
function parseStat(stat: string): StatUsage | undefined {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 22);
  if (f.length < 22) return undefined;
  return {
    rssBytes: Number(f[21]) * pageSize(),
    cpuSeconds: (Number(f[11]) + Number(f[12])) / 100, // utime, stime in clock ticks (USER_HZ = 100)
  };
}

function statOf(pid: number): StatUsage | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

function rssOf(pid: number): number {
  return statOf(pid)?.rssBytes ?? 0;
}

export interface TreeUsage {
  processes: number;
  rssBytes: number;
  cpuSeconds: number;
}

const statmBuffer = Buffer.alloc(256);

/** Milliseconds on a monotonic clock (tests substitute their own). */
export type Clock = () => number;
const monotonicMs: Clock = () => performance.now();

/**
 * Usage of a process tree, read after every request and by the watchdog. The tree's
 * membership (one directory listing and one read per thread of every member) is kept for
 * up to `membershipMs`, and with it each member's CPU time (its stat line: the kernel sums
 * every thread for it); a full scan (`fresh`) refreshes both, and the watchdog does one every
 * poll, so a process started since is seen within a poll interval and the CPU time (the
 * retirement guard at 80% of RLIMIT_CPU) is at most a poll old. Resident memory is read from
 * each member's /proc/<pid>/statm (`size resident …` in pages [proc(5)]; the same count as
 * status's VmRSS), which stays open and is re-read from offset 0, as procfs writes it afresh
 * on each read: one pread per member, where the read after each request used to open, read
 * and close status and stat (a visible share of the daemon's CPU per cache miss). A descriptor stays
 * bound to its process, so a reused pid is never read in its place. `close()` releases them.
 *
 * With a `bound` (the soft threshold the reading is compared with), memory is read only when
 * it may have passed that bound since the last reading (`mayExceed`), at each scan, and on a
 * fresh read; otherwise the last reading stands: the comparison with the bound comes out the
 * same, and the preads (a share of a miss's CPU) are skipped for most requests.
 */
export class TreeUsageReader {
  #statm = new Map<number, number>();
  #cpuSeconds = 0;
  #scannedAt = -Infinity;
  #closed = false;
  /** The last reading of resident memory (bytes), of members that have any, and when it began. */
  #rssBytes = 0;
  #processes = 1;
  #rssAt = -Infinity;
  #readings = 0;

  constructor(
    readonly pid: number,
    private readonly membershipMs = 1000,
    private readonly now: Clock = monotonicMs,
  ) {}

  read(fresh = false, bound?: number): TreeUsage {
    if (this.#closed) return { processes: 0, rssBytes: 0, cpuSeconds: 0 };
    const now = this.now();
    const scan = fresh || now - this.#scannedAt > this.membershipMs;
    if (scan) {
      this.#rescan();
      this.#scannedAt = now;
    }
    if (scan || bound === undefined || mayExceed(this.#rssBytes, now - this.#rssAt, bound)) this.#readResident(now);
    return { processes: this.#processes, rssBytes: this.#rssBytes, cpuSeconds: this.#cpuSeconds };
  }

  /** Readings taken of resident memory (each one pread per member), for tests. */
  get readings(): number {
    return this.#readings;
  }

  /** Close every descriptor; later reads are zero. Idempotent. */
  close(): void {
    this.#closed = true;
    for (const fd of this.#statm.values()) closeQuietly(fd);
    this.#statm.clear();
  }

  /** Each member's resident memory, summed; the root counts as a member even when gone, as processTree lists it. */
  #readResident(now: number): void {
    let processes = 1;
    let rss = 0;
    for (const [p, fd] of this.#statm) {
      const bytes = this.#residentBytes(p, fd);
      if (p !== this.pid && bytes > 0) processes++;
      rss += bytes;
    }
    this.#rssBytes = rss;
    this.#processes = processes;
    this.#rssAt = now;
    this.#readings++;
  }

  #rescan(): void {
    const members = new Set(processTree(this.pid));
    for (const [p, fd] of this.#statm) {
      if (members.has(p)) continue;
      closeQuietly(fd);
      this.#statm.delete(p);
    }
    this.#cpuSeconds = 0;
    for (const p of members) {
      this.#cpuSeconds += statOf(p)?.cpuSeconds ?? 0;
      if (this.#statm.has(p)) continue;
      try {
        this.#statm.set(p, openSync(`/proc/${p}/statm`, 'r'));
      } catch {
        // gone between the listing and the open
      }
    }
  }

  #residentBytes(pid: number, fd: number): number {
    try {
      const n = readSync(fd, statmBuffer, 0, statmBuffer.length, 0);
      return Number(statmBuffer.toString('latin1', 0, n).split(' ', 2)[1] ?? 0) * pageSize();
    } catch {
      // reaped: its descriptor reads ESRCH from now on
      closeQuietly(fd);
      this.#statm.delete(pid);
      return 0;
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** Bytes; 0 when the process is gone or /proc is unavailable. */
export function treeRss(pid: number): number {
  return processTree(pid).reduce((a, p) => a + rssOf(p), 0);
}
