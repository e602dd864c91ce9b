/**
 * The result cache at its cap: the daemon (own process, default configuration except the
 * cache bound) is sent unique large requests whose results are cached (theorem2sorry, no
 * Lean needed) until 1.25 × the bound has passed through the cache; its resident memory is
 * then compared with the bound. Target: RSS ≤ 1.5 × bound + the idle RSS.
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
      environments: [{ ...benchEnvironment, imports: '' }],
    },
    { tag: 'cache' },
  );
  const bodyFile = path.join(scratch, 'cache-body.json');
  writeFileSync(bodyFile, JSON.stringify({ content: largeContent(entryKiB * 1024), environment: 'bench' }));
  const url = `${daemon.url}/api/v1/theorem2sorry`;
  // Idle: started and warmed with requests of the same kind (the heap at its working size),
  // the cache holding a few percent of its bound.
  await sequentialLatency(url, `@${bodyFile}`, 20, 0);
  await new Promise((r) => setTimeout(r, 1000));
  const idle = rssMiB(daemon.pid);
  const requests = Math.ceil((1.25 * boundMiB * 1024) / entryKiB);
  const fill = await sequentialLatency(url, `@${bodyFile}`, requests, 0);
  const atCap = rssMiB(daemon.pid);
  await new Promise((r) => setTimeout(r, 2000));
  const settled = rssMiB(daemon.pid);
  // Buffers outside the JS heap: the cache's stored responses (little else allocates them here).
  const mem = await daemon.memory();
  const status = JSON.parse(
    await (await fetch(`${daemon.url}/v1/status`, { headers: { authorization: `Bearer ${BENCH_KEY}` } })).text(),
  ) as { cache: { entries: number; aliases: number; bytes: number; maxBytes: number; misses: number } };
  await daemon.stop();
  const allowed = 1.5 * boundMiB + idle;
  const worst = Math.max(atCap, settled);
  const ok = fill.statuses['200'] === requests;
  return {
    name: 'cache-memory',
    summary: `cache at its cap (${boundMiB} MiB bound, ${status.cache.entries} entries of ~${entryKiB} KiB): RSS ${round(worst, 1)} MiB vs allowed ${round(allowed, 1)} MiB (1.5 × bound + idle ${round(idle, 1)} MiB)`,
    figures: {
      memory: mem,
      boundMiB,
      entryKiB,
      requests,
      idleMiB: round(idle, 1),
      atCapMiB: round(atCap, 1),
      settledMiB: round(settled, 1),
      allowedMiB: round(allowed, 1),
      cache: status.cache,
      statuses: fill.statuses,
      outside: fill.cpu.outside,
    },
    table: [
      [
        'bound (cache.maxBytes)',
        `${boundMiB} MiB`,
        `${requests} unique theorem2sorry requests of ~${entryKiB} KiB (1.25 × the bound)`,
      ],
      [
        'cache after the fill',
        `${status.cache.entries} entries, ${status.cache.aliases} aliases, ${round(status.cache.bytes / MiB, 1)} MiB counted`,
        `${pct(status.cache.bytes / status.cache.maxBytes)} of the bound; statuses ${JSON.stringify(fill.statuses)}`,
      ],
      ['daemon RSS idle', `${round(idle, 1)} MiB`, 'after start and 20 requests of the same kind'],
      [
        'daemon RSS at the cap / 2 s later',
        `${round(atCap, 1)} / ${round(settled, 1)} MiB`,
        `allowed 1.5 × bound + idle = ${round(allowed, 1)} MiB`,
      ],
      [
        'process.memoryUsage at the cap',
        `heap ${round(mem.heapUsed / MiB, 1)} of ${round(mem.heapTotal / MiB, 1)} MiB, array buffers ${round(mem.arrayBuffers / MiB, 1)} MiB`,
        'array buffers ≈ the cached responses: one stored form per entry; the heap includes garbage not yet collected',
      ],
      ['RSS above idle ÷ bound', `${round((worst - idle) / boundMiB, 2)}×`, 'target ≤ 1.5×'],
    ],
    targets: [
      {
        target: 'cache at its cap: RSS ≤ 1.5 × bound + idle RSS',
        figure: `${round(worst, 1)} MiB ≤ ${round(allowed, 1)} MiB`,
        pass: ok && worst <= allowed,
        noisy: fill.cpu.noisy,
      },
    ],
  };
}
