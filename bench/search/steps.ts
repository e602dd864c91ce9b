/**
 * Proof search benchmark with the stand-in REPL (bench/search/standin-repl.mjs):
 *  1. added latency per step: the daemon + /v1/stream + ProofSearch client, against the same
 *     step sent straight to the stand-in through the product's process layer (same run);
 *  2. steps/s per core: concurrent searches, steps ÷ CPU seconds of this process tree;
 *  3. a long run (default 100,000 steps) with random deletes: states held vs memory, sampled.
 * PASS/FAIL against the targets.
 * `node --expose-gc --import tsx bench/search/steps.ts [steps]` (with --expose-gc the heap is sampled after a
 * full collection; without it the heap figures are noisy and the heap verdict says so).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { buildLaunch, NO_LIMITS } from '../../src/backend/process/launch.ts';
import { ReplProcess } from '../../src/backend/process/repl-process.ts';
import { ProofSearch } from '../../src/client/proof-search.ts';
import { makeApp, testConfig, TEST_ENV } from '../../test/helpers.ts';
import { machine, round, stats } from '../lib.ts';
import { treeTicks } from '../proc.ts';
import { execSync } from 'node:child_process';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const STANDIN = path.join(HERE, '..', '..', 'test', 'fixtures', 'standin-repl.mjs');
const LONG = Number(process.argv[2] ?? 100_000);
const CAP = 2_000;
const launch = () =>
  buildLaunch(
    { project_dir: HERE, repl_command: [process.execPath, STANDIN] },
    { limits: NO_LIMITS, sandbox: 'none' },
    process.env,
  );

async function baseline(n: number): Promise<number[]> {
  const p = new ReplProcess({ launch: launch(), log: pino({ level: 'silent' }) });
  await p.send({ cmd: 'theorem t : P := by sorry' });
  const out: number[] = [];
  let ps = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await p.send({ tactic: `t${i}`, proofState: ps });
    out.push(performance.now() - t0);
    if (r.type === 'proofStep') ps = r.value.proofState;
  }
  p.kill('closed', 'bench done');
  await p.exited;
  return out;
}

async function daemon() {
  const config = testConfig({
    // One anonymous caller (this process) runs the concurrent searches: its cap and slots allow them.
    search: { maxStatesPerCaller: CAP, maxStates: CAP * 4, cacheEntries: 20_000, maxProcesses: 4, maxDepth: 5_000 },
    admission: { anonymousConcurrency: 4 },
    lean: { maxSessions: 4, maxProcesses: 4, maxStates: 1_000_000, maxUses: 10_000_000 },
  });
  const app = await makeApp({ launch, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, url: `ws://127.0.0.1:${port}` };
}

async function chain(search: ProofSearch, n: number, tag: string): Promise<number[]> {
  let state = (await search.start('theorem t : P := by sorry')).states[0]!.state;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = (await search.tactic(state, `${tag}${i}`)).results[0]!;
    out.push(performance.now() - t0);
    if (!r.ok) throw new Error(`step failed: ${r.error}`);
    await search.delete(state);
    state = r.state;
  }
  return out;
}

async function throughput(url: string, conns: number, perConn: number) {
  const ticks0 = treeTicks(process.pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: conns }, async (_, c) => {
      const s = await ProofSearch.connect({ url, environment: TEST_ENV });
      await chain(s, perConn, `c${c}-`);
      await s.dispose();
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = (treeTicks(process.pid) - ticks0) / 100;
  const steps = conns * perConn;
  return {
    steps,
    wallSeconds: round(wall),
    cpuSeconds: round(cpu),
    stepsPerSecond: round(steps / wall, 1),
    stepsPerCoreSecond: round(steps / cpu, 1),
  };
}

async function longRun(url: string, steps: number) {
  const s = await ProofSearch.connect({ url, environment: TEST_ENV });
  const live = [(await s.start('theorem t : P := by sorry')).states[0]!.state];
  const samples: { step: number; states: number; heapMb: number; rssMb: number; replRssMb: number }[] = [];
  let maxStates = 0;
  let answered = 0;
  let migrations = 0;
  let rnd = 12345;
  const rand = (n: number) => ((rnd = (rnd * 1103515245 + 12345) % 2 ** 31), rnd % n);
  for (let i = 0; i < steps; i++) {
    if (live.length >= CAP - 1) {
      const drop = new Set<number>();
      while (drop.size < CAP / 4) drop.add(1 + rand(live.length - 1)); // keep the root
      await s.delete([...drop].map((k) => live[k]!));
      const kept = live.filter((_, k) => !drop.has(k));
      live.length = 0;
      live.push(...kept);
    }
    const msg = await s.tactic(live[rand(live.length)]!, `x${i}`);
    const r = msg.results[0]!;
    answered++;
    if (msg.rebuilt.length > 0) migrations++;
    if (r.ok) live.push(r.state);
    if (i % Math.max(1, Math.floor(steps / 10)) === 0 || i === steps - 1) {
      const st = await s.stat();
      maxStates = Math.max(maxStates, st.connection.states);
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      samples.push({
        step: i + 1,
        states: st.connection.states,
        heapMb: round(m.heapUsed / 2 ** 20, 1),
        rssMb: round(m.rss / 2 ** 20, 1),
        replRssMb: st.processes[0]?.rssMb ?? 0,
      });
    }
    maxStates = Math.max(maxStates, live.length);
  }
  await s.dispose();
  return { steps, answered, maxStates, cap: CAP, migrations, samples };
}

async function main() {
  const load = execSync('uptime').toString().trim();
  const base = await baseline(2_000);
  const { app, url } = await daemon();
  try {
    const s = await ProofSearch.connect({ url, environment: TEST_ENV });
    await chain(s, 500, 'warm');
    const cand = await chain(s, 2_000, 'lat');
    await s.dispose();
    const b = stats(base.slice(200));
    const c = stats(cand.slice(200));
    const added = c.p50 - b.p50;
    const tp = await throughput(url, 4, 1_500);
    const long = await longRun(url, LONG);
    const heapAt = (k: number) => long.samples[Math.min(long.samples.length - 1, k)]!.heapMb;
    const heapGrowth = heapAt(long.samples.length - 1) - heapAt(2);
    const report = {
      at: new Date().toISOString(),
      machine: machine(),
      load,
      latency: {
        baselineP50Ms: round(b.p50),
        daemonP50Ms: round(c.p50),
        addedP50Ms: round(added),
        baselineP95Ms: round(b.p95),
        daemonP95Ms: round(c.p95),
      },
      throughput: tp,
      long,
      verdicts: {
        addedLatency: added <= 1 ? 'PASS' : 'FAIL',
        statesWithinCap: long.maxStates <= CAP ? 'PASS' : 'FAIL',
        noLostAnswer: long.answered === long.steps ? 'PASS' : 'FAIL',
        heapBounded: !('gc' in globalThis) ? 'NOT MEASURED (run with --expose-gc)' : heapGrowth <= 16 ? 'PASS' : 'FAIL',
      },
      heapGrowthMbAfterWarmup: round(heapGrowth, 1),
    };
    console.log(JSON.stringify(report, null, 2));
    const file = path.join(HERE, '..', 'results', `search-${report.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(report, null, 2));
    console.log(`written ${file}`);
  } finally {
    await app.close();
  }
}

await main();
