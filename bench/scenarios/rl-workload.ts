/**
 * A Lean-like workload, side by side with Kimina Lean Server: the candidates of bench/rl-workload.ts
 * (N statements × K sampled proofs, some duplicates, a shared header and a few others) sent by C
 * clients to `POST /verify` of (a) the daemon and (b) Kimina started from its source (bench/kimina.ts;
 * skipped with the reason when absent), both in front of the cost-model REPL (bench/cost-repl.mjs),
 * on the same cores with the same pool size, each warm on the shared header before the clock starts.
 * Fresh servers for every run (the daemon's cache must not carry over), interleaved D K, K D.
 * Reported per server: proofs per second, p50/p99, outcomes, REPL and server CPU from /proc, REPL CPU
 * per verified proof, and the fraction of the cost model's lower bound reached (every distinct check's
 * unavoidable REPL CPU ÷ cores, over the run's wall time).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { processTree, treeRss } from '../../src/backend/process/rss.ts';
import { SCALE } from '../cost-model.mjs';
import { kiminaUnavailable, startKimina } from '../kimina.ts';
import { pct, round, stats, type ScenarioResult } from '../lib.ts';
import { cpuMeter, ownTicks, treeTicks } from '../proc.ts';
import { candidates, lowerBound, SHARED_IMPORTS, WORKLOAD, type Candidate, type LowerBound } from '../rl-workload.ts';
import { BENCH_KEY, benchEnvironment, startDaemon } from '../servers.ts';
import { poster } from './http-client.ts';

const COST_REPL = fileURLToPath(new URL('../cost-repl.mjs', import.meta.url));
const POOL = 2;
const ROUNDS = Number(process.env.BENCH_RL_ROUNDS ?? 2);
const HZ = 100;
/** BENCH_RL_LIMIT: send only the first n candidates (a smoke run, or a run within a time budget: the summary says so). */
const LIMIT = Number(process.env.BENCH_RL_LIMIT ?? 0);

interface Server {
  kind: 'daemon' | 'kimina';
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

export interface RunFigures {
  kind: Server['kind'];
  round: number;
  wallS: number;
  proofsPerS: number;
  verifiedPerS: number;
  p50Ms: number;
  p99Ms: number;
  outcomes: Record<string, number>;
  replCpuS: number;
  serverCpuS: number;
  replCpuPerVerifiedMs: number;
  lowerBoundFraction: number;
  /** The same against the share of the machine other processes left (the bound on what this run could get). */
  lowerBoundFractionOfShare: number;
  outside: number;
  load: string;
  /** REPL processes started during the run (imports paid beyond the warm pool), sampled from /proc. */
  replStarts: number;
}

/** Every process seen in `pid`'s tree while it runs, sampled every 200 ms. */
function treeSampler(pid: number) {
  const before = new Set(processTree(pid));
  const seen = new Set<number>();
  const timer = setInterval(() => processTree(pid).forEach((p) => seen.add(p)), 200);
  return () => {
    clearInterval(timer);
    return [...seen].filter((p) => !before.has(p)).length;
  };
}

/**
 * The stand-in's own runtime memory (Node's, MiB), read from a fresh cost REPL before any command. A Lean
 * REPL has no such runtime beside its import, and this one is not scaled with the rest: left out of the
 * scaled memory cap, it would put a session near the soft threshold after its import and retire it every
 * few dozen commands, a start the unscaled settings would not make.
 */
async function standinRuntimeMb(): Promise<number> {
  const child = spawn(process.execPath, [COST_REPL], { stdio: ['pipe', 'ignore', 'ignore'] });
  await new Promise((r) => setTimeout(r, 500));
  const mb = treeRss(child.pid!) / 2 ** 20;
  child.kill();
  return Math.round(mb);
}

async function daemon(tag: string): Promise<Server> {
  const runtimeMb = await standinRuntimeMb();
  const s = await startDaemon(
    {
      // Admission at the pool's size: requests wait in the key's queue, before their deadline starts, as Kimina's wait
      // for a REPL is outside its timeout (routers/check.py: `get_repl`, then `send_timeout`). Above it they would
      // wait for a session inside their deadline (docs/rl-workload.md, findings).
      keys: [{ key: BENCH_KEY, concurrency: POOL }],
      environments: [{ ...benchEnvironment, imports: SHARED_IMPORTS }],
      server: { kimina: { environment: benchEnvironment.name } },
      // Production defaults, with their times and memory scaled as the cost model's are.
      lean: {
        minWarm: POOL,
        maxSessions: POOL,
        maxProcesses: POOL,
        heartbeatsPerSecond: Math.round(20_000 / SCALE),
        killGraceSeconds: 5 * SCALE,
        maxRssMb: Math.round(12_288 * SCALE) + runtimeMb,
        startupTimeoutSeconds: 600 * SCALE,
      },
    },
    { tag, env: { BENCH_REPL: COST_REPL } },
  );
  return { kind: 'daemon', url: s.url, pid: s.pid, stop: s.stop };
}

async function kimina(tag: string): Promise<Server> {
  const s = await startKimina({ script: COST_REPL, pool: POOL, header: SHARED_IMPORTS, tag });
  return { kind: 'kimina', ...s };
}

/** Until the pool's REPLs are up and the tree has been idle for a second (the warm imports done). */
async function settle(pid: number): Promise<void> {
  const until = Date.now() + 120_000;
  let last = treeTicks(pid);
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = treeTicks(pid);
    if (now - last <= 3 && processTree(pid).length > POOL) return;
    last = now;
  }
  throw new Error(`server ${pid} did not settle`);
}

/** One candidate's outcome from Kimina's /verify answer (the daemon answers the same shape). */
function outcome(status: number, body: string): string {
  if (status !== 200) return `http ${status}`;
  const r = (JSON.parse(body) as { results: { error?: string; response?: { messages?: { severity: string }[] } }[] })
    .results[0];
  if (r?.error) return /timed out/.test(r.error) ? 'timeout' : 'failed';
  return r?.response?.messages?.some((m) => m.severity === 'error') ? 'rejected' : 'valid';
}

async function drive(url: string, cands: Candidate[]) {
  const { post, close } = poster(url, BENCH_KEY);
  const timeout = Math.round(WORKLOAD.timeoutS * SCALE);
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WORKLOAD.clients }, async () => {
      while (next < cands.length) {
        const c = cands[next++]!;
        const s = performance.now();
        const r = await post('/verify', { codes: [{ custom_id: String(c.id), proof: c.code }], timeout });
        latencies.push(performance.now() - s);
        // Split by header: a candidate under another header than the shared one is counted apart.
        const o = `${c.header.startsWith(`${SHARED_IMPORTS}\n\n`) ? '' : 'other header '}${outcome(r.status, r.body)}`;
        outcomes[o] = (outcomes[o] ?? 0) + 1;
      }
    }),
  );
  const wallS = (performance.now() - t0) / 1000;
  close();
  return { wallS, latencies, outcomes };
}

async function measure(s: Server, round: number, cands: Candidate[], lb: LowerBound): Promise<RunFigures> {
  await settle(s.pid);
  const load0 = os.loadavg()[0]!;
  const meter = cpuMeter();
  const [tree0, own0] = [treeTicks(s.pid), ownTicks(s.pid)];
  const started = treeSampler(s.pid);
  const { wallS, latencies, outcomes } = await drive(s.url, cands);
  const [tree1, own1] = [treeTicks(s.pid), ownTicks(s.pid)];
  const replStarts = started();
  const share = meter.stop();
  await s.stop();
  const lat = stats(latencies);
  const verified = Object.entries(outcomes)
    .filter(([k]) => /(valid|rejected)$/.test(k))
    .reduce((a, [, n]) => a + n, 0);
  const serverCpuS = (own1 - own0) / HZ;
  const replCpuS = (tree1 - tree0) / HZ - serverCpuS;
  return {
    kind: s.kind,
    round,
    wallS: round3(wallS),
    proofsPerS: round3(cands.length / wallS),
    verifiedPerS: round3(verified / wallS),
    p50Ms: Math.round(lat.p50),
    p99Ms: Math.round(lat.p99),
    outcomes,
    replCpuS: round3(replCpuS),
    serverCpuS: round3(serverCpuS),
    replCpuPerVerifiedMs: round3((replCpuS * 1000) / Math.max(1, verified)),
    lowerBoundFraction: round3(lb.seconds / wallS),
    lowerBoundFractionOfShare: round3(lb.seconds / Math.max(0.05, 1 - share.outside) / wallS),
    outside: share.outside,
    load: `${load0.toFixed(2)}→${os.loadavg()[0]!.toFixed(2)}`,
    replStarts,
  };
}

const round3 = (x: number) => round(x, 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function runRounds(cands: Candidate[], lb: LowerBound, withKimina: boolean): Promise<RunFigures[]> {
  const runs: RunFigures[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: Server['kind'][] = withKimina ? (r % 2 ? ['kimina', 'daemon'] : ['daemon', 'kimina']) : ['daemon'];
    for (const kind of order) {
      const s = kind === 'daemon' ? await daemon(`rl${r}`) : await kimina(`rl${r}`);
      // A run that fails (a server that never settles) still stops its server: none is left running.
      const f = await measure(s, r, cands, lb).catch(async (e: unknown) => {
        await s.stop();
        throw e;
      });
      console.error(`  ${kind} r${r}: ${JSON.stringify(f)}`);
      runs.push(f);
    }
  }
  return runs;
}

export async function rlWorkloadScenario(): Promise<ScenarioResult> {
  const cands = LIMIT > 0 ? candidates().slice(0, LIMIT) : candidates();
  const lb = lowerBound(cands, os.cpus().length);
  const skip = kiminaUnavailable();
  if (skip) console.error(`  Kimina side skipped: ${skip}`);
  const runs = await runRounds(cands, lb, !skip);
  return report(runs, lb, cands.length, skip);
}

function report(runs: RunFigures[], lb: LowerBound, n: number, skip: string | undefined): ScenarioResult {
  const of = (k: Server['kind']) => runs.filter((x) => x.kind === k);
  const med = (k: Server['kind'], f: (x: RunFigures) => number) => median(of(k).map(f));
  const ratio = skip ? NaN : med('daemon', (x) => x.proofsPerS) / med('kimina', (x) => x.proofsPerS);
  const frac = med('daemon', (x) => x.lowerBoundFraction);
  const noisy = runs.some((x) => x.outside > 0.1);
  const row = (k: Server['kind']): [string, string, string][] =>
    of(k).length === 0
      ? [[k, 'skipped', skip ?? '']]
      : [
          [
            `${k}: proofs/s (verified/s)`,
            `${med(k, (x) => x.proofsPerS)} (${med(k, (x) => x.verifiedPerS)})`,
            'median of rounds',
          ],
          [`${k}: latency p50 / p99`, `${med(k, (x) => x.p50Ms)} / ${med(k, (x) => x.p99Ms)} ms`, ''],
          [
            `${k}: REPL CPU per verified proof`,
            `${med(k, (x) => x.replCpuPerVerifiedMs)} ms`,
            `server CPU ${med(k, (x) => x.serverCpuS)} s per run; ${med(k, (x) => x.replStarts)} REPL processes started`,
          ],
          [
            `${k}: fraction of the lower bound`,
            pct(med(k, (x) => x.lowerBoundFraction)),
            `${pct(med(k, (x) => x.lowerBoundFractionOfShare))} against the CPU share other processes left`,
          ],
        ];
  return {
    name: 'rl-workload',
    summary:
      `${n === WORKLOAD.statements * WORKLOAD.candidates ? '' : `the first ${n} of `}${WORKLOAD.statements * WORKLOAD.candidates} candidates (${lb.distinct} distinct checks, ${lb.headers} headers, ${lb.timeouts} distinct timeouts), ` +
      `${WORKLOAD.clients} clients, pool ${POOL}, cost model scaled ×${round3(SCALE)}: daemon ${pct(frac)} of the lower bound` +
      (skip ? `; Kimina skipped: ${skip}` : `, ${round(ratio, 2)}× Kimina's proofs per second`),
    figures: { workload: WORKLOAD, sent: n, scale: SCALE, lowerBound: lb, runs, ratio, skipped: skip },
    table: [
      [
        'workload',
        `${WORKLOAD.statements} statements × ${WORKLOAD.candidates} candidates`,
        `${n} sent; docs/rl-workload.md`,
      ],
      [
        'lower bound',
        `${round3(lb.unavoidableCpuS)} s REPL CPU ÷ ${os.cpus().length} cores = ${round3(lb.seconds)} s`,
        `every candidate run: ${round3(lb.everyCandidateCpuS)} s`,
      ],
      ...row('daemon'),
      ...row('kimina'),
    ],
    targets: [
      {
        target: "rl-workload: ≥ 2× Kimina's proofs per second",
        figure: skip ? skip : `${round(ratio, 2)}×`,
        pass: ratio >= 2,
        noisy,
        ...(skip ? { skipped: true } : {}),
      },
      { target: 'rl-workload: daemon ≥ 90 % of the lower bound', figure: pct(frac), pass: frac >= 0.9, noisy },
    ],
    roundsHeader: [
      'round',
      'server',
      'proofs/s',
      'p50 / p99 ms',
      'outcomes',
      'REPL / server CPU s',
      'of bound',
      'others',
      'load',
    ],
    rounds: runs.map((x) => [
      String(x.round),
      x.kind,
      String(x.proofsPerS),
      `${x.p50Ms} / ${x.p99Ms}`,
      JSON.stringify(x.outcomes),
      `${x.replCpuS} / ${x.serverCpuS}`,
      `${pct(x.lowerBoundFraction)} (${pct(x.lowerBoundFractionOfShare)})`,
      String(x.replStarts),
      pct(x.outside),
      x.load,
    ]),
  };
}
