/**
 * CPU per request by activity, from a system-wide `perf record -g` of a server process
 * (bench/profile-hit.ts `--perf`). Unlike V8's `--cpu-prof` (wall-clock samples: a thread
 * descheduled inside `writev` counts there), perf counts CPU only, kernel and V8's helper threads
 * included. Each sample of the process's main thread is counted under the first frame of its call
 * chain (leaf first) that one of ACTIVITIES names; JIT frames are named through the process's
 * `/tmp/perf-<pid>.map` (`--perf-basic-prof`).
 */
import { spawnSync } from 'node:child_process';

/** Activities in the order they are tried on each frame; the first match names the sample. */
const ACTIVITIES: [string, RegExp][] = [
  ['gc', /Scavenge|Heap::|GarbageCollect|MarkCompact|Sweeper|ConcurrentMarking|MinorMC/],
  ['raw-body hash', /rawKey|node:internal\/crypto\/hash|sha256|EVP_Digest/],
  ['known bodies', /known-bodies\.ts/],
  ['cache lookup', /getRaw|lookupRaw|lru-cache/],
  ['log line', /request-log\.ts|request-line\.ts|src\/log\.ts/],
  ['shared links', /shared-links\.ts|recent-requests\.ts/],
  ['metrics', /src\/metrics\//],
  ['request id', /request-id\.ts|randomUUID|randomFill/],
  ['front (other)', /hit-front\.ts|src\/app\.ts/],
  ['JSON parse', /JsonParser|secure-json-parse|JSON/],
  ['fastify', /fastify\/|find-my-way|avvio|fast-uri/],
  ['response write', /_http_outgoing|writeHead|clearBuffer|[Ww]ritev|_storeHeader|stream_base_commons|writable/],
  [
    'request read (parser, IncomingMessage, body stream)',
    /_http_incoming|_http_common|_http_server|llhttp|readable|Parser/,
  ],
  ['timers (connection timeout)', /timers|Timer/],
  ['ticks and microtasks', /task_queues|Microtask/],
];

interface Sample {
  tid: number;
  frames: string[];
}

/** `perf script` samples of one process: thread id and call chain, leaf first, kernel frames marked `[k]`. */
function samples(dataFile: string, pid: number): Sample[] {
  const r = spawnSync('perf', ['script', '-i', dataFile, '--pid', String(pid), '-F', 'tid,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`perf script failed: ${r.stderr}`);
  const out: Sample[] = [];
  for (const block of r.stdout.split('\n\n')) {
    const lines = block.trim().split('\n');
    const tid = Number(lines[0]?.trim().split(/\s+/)[0]);
    if (!Number.isInteger(tid)) continue;
    const frames = lines.slice(1).flatMap((l) => {
      const m = /^\s*[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$/.exec(l);
      return m ? [`${m[2]!.includes('kernel') ? '[k] ' : ''}${m[1]!.replace(/\+0x[0-9a-f]+$/, '')}`] : [];
    });
    out.push({ tid, frames });
  }
  return out;
}

function activityOf(frames: string[]): string {
  for (const f of frames) for (const [name, re] of ACTIVITIES) if (re.test(f)) return name;
  return frames[0]?.startsWith('[k]') ? 'kernel (other)' : 'other';
}

/** Lines `µs/request  activity`, busiest first, for the samples of `pid` at `hz` over `requests`. */
export function cpuByActivity(dataFile: string, pid: number, hz: number, requests: number): string[] {
  const counts = new Map<string, number>();
  for (const s of samples(dataFile, pid)) {
    const name = s.tid === pid ? activityOf(s.frames) : 'other threads (V8 GC helpers, compiler, workers)';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const us = (n: number) => (n * 1e6) / hz / requests;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return [
    `${us(total).toFixed(1)} µs of CPU per request (perf, all threads)`,
    ...[...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${us(n).toFixed(2).padStart(7)} µs  ${name}`),
  ];
}
