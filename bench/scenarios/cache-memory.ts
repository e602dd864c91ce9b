/**
 * The result cache at its cap: the daemon (own process, default configuration except the
 * cache bound) is sent unique large requests whose results are cached (theorem2sorry, no
 * Lean needed) until 1.25 × the bound has passed through the cache; its resident memory is
 * then compared with the bound. Target: RSS ≤ 1.5 × bound + the idle RSS.
 *
 * What is measured is what the cache holds, so both readings are taken after a full garbage
 * collection (the daemon runs with --expose-gc; bench/daemon.ts collects before it reports):
 * without it the figure was mostly garbage not yet collected (heapUsed 294 MiB at the cap, of
 * which ~63 MiB was live), whose amount depends on when V8 last ran a major GC. The RSS before
 * that collection is reported beside it. Shared links are off here: their recent-requests ring
 * holds every answered request up to its own bound (`sharedLinks.recentMaxBytes`, 32 MiB), a
 * second store the same traffic fills (measured in-process: +27 MiB of heap at its cap).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sequentialLatency } from '../load.ts';
import { BENCH_KEY, benchEnvironment, scratch, startDaemon } from '../servers.ts';
import { pct, round, type ScenarioResult } from '../lib.ts';

const MiB = 2 ** 20;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** A Lean file of about `bytes` bytes: many small theorems, so the result is as large as the request. */
function largeContent(bytes: number): string {
  const line = (i: number) => `theorem t_${i} (a b : Nat) : a + b = b + a := by\n  omega\n\n`;
  const out = ['-- [<id>]\n'];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = line(i);
    out.push(l);
    size += l.length;
  }
  return out.join('');
}

export async function cacheMemoryScenario(
  opts: { boundMiB?: number; entryKiB?: number } = {},
): Promise<ScenarioResult> {
  const boundMiB = opts.boundMiB ?? 64;
  const entryKiB = opts.entryKiB ?? 128;
  const daemon = await startDaemon(
    {
      keys: [{ key: BENCH_KEY, concurrency: 10_000 }],
      lean: { minWarm: 0 },
      cache: { maxBytes: boundMiB * MiB },
      sharedLinks: { enabled: false },
      environments: [{ ...benchEnvironment, imports: '' }],
    },
    { tag: 'cache', nodeArgs: ['--expose-gc'] },
  );
  const bodyFile = path.join(scratch, 'cache-body.json');
  writeFileSync(bodyFile, JSON.stringify({ content: largeContent(entryKiB * 1024), environment: 'bench' }));
  const url = `${daemon.url}/api/v1/theorem2sorry`;
  // Idle: started and warmed with requests of the same kind (the heap at its working size),
  // the cache holding a few percent of its bound; read after a full collection.
  await sequentialLatency(url, `@${bodyFile}`, 20, 0);
  const idleMem = await daemon.memory();
  const idle = rssMiB(daemon.pid);
  const requests = Math.ceil((1.25 * boundMiB * 1024) / entryKiB);
  const fill = await sequentialLatency(url, `@${bodyFile}`, requests, 0);
  const beforeGc = rssMiB(daemon.pid);
  await new Promise((r) => setTimeout(r, 2000));
  // Buffers outside the JS heap are the cache's stored responses (little else allocates them here).
  const mem = await daemon.memory();
  const atCap = rssMiB(daemon.pid);
  const status = JSON.parse(
    await (await fetch(`${daemon.url}/v1/status`, { headers: { authorization: `Bearer ${BENCH_KEY}` } })).text(),
  ) as { cache: { entries: number; aliases: number; bytes: number; maxBytes: number; misses: number } };
  await daemon.stop();
  const allowed = 1.5 * boundMiB + idle;
  const ok = fill.statuses['200'] === requests;
  const heap = (m: NodeJS.MemoryUsage) =>
    `heap ${round(m.heapUsed / MiB, 1)} of ${round(m.heapTotal / MiB, 1)} MiB, array buffers ${round(m.arrayBuffers / MiB, 1)} MiB`;
  return {
    name: 'cache-memory',
    summary: `cache at its cap (${boundMiB} MiB bound, ${status.cache.entries} entries of ~${entryKiB} KiB): RSS ${round(atCap, 1)} MiB after a full GC vs allowed ${round(allowed, 1)} MiB (1.5 × bound + idle ${round(idle, 1)} MiB); ${round(beforeGc, 1)} MiB before it`,
    figures: {
      memory: mem,
      idleMemory: idleMem,
      boundMiB,
      entryKiB,
      requests,
      idleMiB: round(idle, 1),
      beforeGcMiB: round(beforeGc, 1),
      atCapMiB: round(atCap, 1),
      allowedMiB: round(allowed, 1),
      cache: status.cache,
      statuses: fill.statuses,
      outside: fill.cpu.outside,
    },
    table: [
      [
        'bound (cache.maxBytes)',
        `${boundMiB} MiB`,
        `${requests} unique theorem2sorry requests of ~${entryKiB} KiB (1.25 × the bound); shared links off`,
      ],
      [
        'cache after the fill',
        `${status.cache.entries} entries, ${status.cache.aliases} aliases, ${round(status.cache.bytes / MiB, 1)} MiB counted`,
        `${pct(status.cache.bytes / status.cache.maxBytes)} of the bound; statuses ${JSON.stringify(fill.statuses)}`,
      ],
      [
        'daemon RSS idle',
        `${round(idle, 1)} MiB`,
        `after start, 20 requests of the same kind and a full GC; ${heap(idleMem)}`,
      ],
      [
        'daemon RSS at the cap, after a full GC',
        `${round(atCap, 1)} MiB`,
        `allowed 1.5 × bound + idle = ${round(allowed, 1)} MiB; ${heap(mem)} (array buffers ≈ the cached responses)`,
      ],
      [
        'daemon RSS at the cap, before it',
        `${round(beforeGc, 1)} MiB`,
        'garbage not yet collected included (how much depends on when V8 last ran a major GC)',
      ],
      ['RSS above idle ÷ bound', `${round((atCap - idle) / boundMiB, 2)}×`, 'target ≤ 1.5× (after a full GC)'],
    ],
    targets: [
      {
        target: 'cache at its cap: RSS ≤ 1.5 × bound + idle RSS (both after a full GC)',
        figure: `${round(atCap, 1)} MiB ≤ ${round(allowed, 1)} MiB`,
        pass: ok && atCap <= allowed,
        noisy: fill.cpu.noisy,
      },
    ],
  };
}
