/**
 * Each hand-written fast path against its plain path (config `fastPaths`; docs/hot-paths.md):
 * the figures its retirement condition names. Prints, does not record (use `nice`, note `uptime`).
 *
 *   node --import tsx bench/fast-paths.ts hits [seconds] [rounds]
 *     CPU per cache hit (server process, /proc), interleaved: the daemon as configured by
 *     default, with fastPaths.knownBodies off, with fastPaths.hitFront off, and a bare fastify
 *     route answering the same bytes (the hit-path scenario's baseline).
 *   node --import tsx bench/fast-paths.ts parse
 *     µs per REPL command response, hand read then zod, and zod alone (this project's fixtures).
 *   node --import tsx bench/fast-paths.ts abort
 *     µs per request for the light controller and Node's, each made with one listener and aborted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ResponseDecoder } from '../src/backend/protocol/framing.ts';
import { parseResponse } from '../src/backend/protocol/schema.ts';
import { RequestAbortController } from '../src/util/request-abort.ts';
import { autocannon, interleave, spread } from './load.ts';
import { benchEnvironment, BENCH_KEY, post, ROOT, scratch, startBareFastify, startDaemon } from './servers.ts';
import { sampleContent } from './scenarios/hit-path.ts';

/** Median µs per call of `f` over `rounds` timed batches of `n` calls (after a warm-up batch). */
function perCall(f: () => void, n = 200_000, rounds = 7): number {
  for (let i = 0; i < n; i++) f();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f();
    times.push(Number(process.hrtime.bigint() - t0) / 1000 / n);
  }
  return spread(times).median;
}

function parse(): void {
  const out = readFileSync(path.join(ROOT, 'test', 'fixtures', 'repl', 'session.out'), 'utf8');
  const commands = new ResponseDecoder().push(out).filter((j) => !!j && typeof j === 'object' && 'env' in j);
  let i = 0;
  const next = () => commands[i++ % commands.length];
  const byHand = perCall(() => parseResponse(next(), true));
  const zod = perCall(() => parseResponse(next(), false));
  console.log(
    `${commands.length} command responses: hand read ${byHand.toFixed(3)} µs, zod alone ${zod.toFixed(3)} µs`,
  );
}

function abort(): void {
  const listener = () => {};
  const run = (c: { signal: AbortSignal; abort(reason?: unknown): void }) => {
    c.signal.addEventListener('abort', listener);
    c.abort('done');
  };
  const light = perCall(() => run(new RequestAbortController()), 100_000);
  const node = perCall(() => run(new AbortController()), 100_000);
  console.log(`with one listener, aborted: light ${light.toFixed(3)} µs, Node's ${node.toFixed(3)} µs`);
}

async function hits(seconds: number, rounds: number): Promise<void> {
  const base = {
    keys: [{ key: BENCH_KEY, concurrency: 10_000 }],
    environments: [benchEnvironment],
    server: { cacheStatus: true },
  };
  const variants = {
    'all on': {},
    'knownBodies off': { knownBodies: false },
    'hitFront off': { hitFront: false },
  };
  const body = JSON.stringify({ content: sampleContent(), environment: 'bench' });
  const servers = new Map<string, { url: string; pid: number; stop: () => Promise<void> }>();
  let bytes: Buffer | undefined;
  for (const [name, fastPaths] of Object.entries(variants)) {
    const d = await startDaemon({ ...base, fastPaths }, { tag: name.replace(/ /g, '-') });
    await post(`${d.url}/api/v1/check`, body);
    const hit = await post(`${d.url}/api/v1/check`, body);
    if (hit.headers['x-cache'] !== 'hit') throw new Error(`${name}: no cache hit to measure`);
    bytes ??= hit.body;
    servers.set(name, d);
  }
  const file = path.join(scratch, 'fast-paths-response.json');
  writeFileSync(file, bytes!);
  servers.set('bare fastify', await startBareFastify(file));
  const samples = await interleave([...servers.keys()], rounds, (t, warm) =>
    autocannon(servers.get(t)!.url, { seconds: warm ? 2 : seconds, connections: 50, body, pid: servers.get(t)!.pid }),
  );
  for (const s of servers.values()) await s.stop();
  for (const name of servers.keys()) {
    const runs = samples.filter((s) => s.target === name).map((s) => s.result);
    const cpu = spread(runs.map((r) => r.cpuUsPerReq ?? 0));
    const rps = spread(runs.map((r) => r.rps));
    console.log(
      `${name.padEnd(16)} CPU ${cpu.median.toFixed(1)} µs/hit (${cpu.min.toFixed(1)}–${cpu.max.toFixed(1)}), ${Math.round(rps.median)} req/s`,
    );
  }
}

const [mode, a, b] = process.argv.slice(2);
if (mode === 'parse') parse();
else if (mode === 'abort') abort();
else if (mode === 'hits') await hits(Number(a ?? 5), Number(b ?? 3));
else console.error('usage: node --import tsx bench/fast-paths.ts hits [seconds] [rounds] | parse | abort');
