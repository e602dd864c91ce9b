/**
 * The `rl-workload` run replayed against the daemon's own pool code (src/backend/pool: Pool and PoolAgent) in virtual
 * time, so that REPL process starts can be counted by cause and compared between versions of the pool whatever the
 * machine's load (docs/rl-workload.md, "What the workload showed about the daemon"). Not a scenario: it measures
 * nothing of this machine.
 *
 * The model: each REPL process has a core of its own (two processes, two cores); a start costs the import's CPU
 * (bench/cost-model.mjs) and a cancelled one what it spent until cancelled; a candidate costs its declaration's price
 * and a command's fixed cost; one priced past the request's timeout runs to the timeout and the kill grace, then its
 * process is killed (the daemon's heartbeat budget does not stop it in time: bench/cost-repl.mjs). The bench's
 * admission (the key's concurrency, ADMIT, default 2) and clients (8); an exact-text result cache and the comment memo
 * (a candidate whose comment-free form was answered), with no coalescing in flight; timeouts are not cached. HTTP and the daemon's own CPU are not modelled.
 *
 * The pool's clocks (Date.now, performance.now, setTimeout) are the virtual one's. Besides starts, retirements and
 * REPL CPU it reports each candidate's wait for a session (admission to acquire: it counts against the deadline) as
 * p50 / p99 / max for the shared header and the others, and how many would have outlived their timeout with it
 * (`late`: the daemon would have timed them out; the model lets them finish).
 *
 * `node --import tsx bench/rl-pool-model.ts [dir]`: `dir` holds the pool's sources to load (default this checkout's
 * src/backend/pool; e.g. a `git worktree` of another commit's, to compare). TRACE=1 prints the starts, retirements
 * and another header's requests in virtual time.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log } from '../src/log.ts';
import type { PoolAgent as Agent } from '../src/backend/pool/agent.ts';
import type { Pool as PoolClass, Poolable, SlotGate, Usage } from '../src/backend/pool/pool.ts';
import { commentFree } from '../src/syntax/comment-free.ts';
import { addedImports } from '../src/backend/session/module-probe.ts';
import { limitMs, loadedModules, MODEL, price, SCALE } from './cost-model.mjs';
import { candidates, SHARED_IMPORTS, WORKLOAD, type Candidate } from './rl-workload.ts';

const dir = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..', 'src', 'backend', 'pool'));
const { Pool } = (await import(pathToFileURL(path.join(dir, 'pool.ts')).href)) as { Pool: typeof PoolClass };
const { PoolAgent } = (await import(pathToFileURL(path.join(dir, 'agent.ts')).href)) as { PoolAgent: typeof Agent };
const ADMIT = Number(process.env.ADMIT ?? 2);
const IMPORT_MS = MODEL.importCpuMs * SCALE;
const TIMEOUT_MS = WORKLOAD.timeoutS * SCALE * 1000;
/** The bench's `killGraceSeconds` (bench/scenarios/rl-workload.ts). */
const GRACE_MS = 5 * SCALE * 1000;
const BASE_MS = MODEL.baseMsPerCommand * SCALE;
/** The daemon's `lean.maxUses` (MAX_USES to try another). */
const MAX_USES = Number(process.env.MAX_USES ?? 500);

/** Virtual time: callbacks in time order, each run once the promises of the one before have settled. */
class Clock {
  now = 0;
  #q: { t: number; seq: number; fn: () => void }[] = [];
  #seq = 0;
  at(dt: number, fn: () => void): void {
    this.#q.push({ t: this.now + dt, seq: this.#seq++, fn });
    this.#q.sort((a, b) => a.t - b.t || a.seq - b.seq);
  }
  sleep(ms: number): Promise<void> {
    return new Promise((r) => this.at(ms, r));
  }
  /** Run until `done()` holds or nothing is left. */
  async run(done: () => boolean): Promise<void> {
    for (;;) {
      for (let i = 0; i < 8; i++) await new Promise((r) => setImmediate(r));
      const e = done() ? undefined : this.#q.shift();
      if (!e) return;
      this.now = e.t;
      e.fn();
    }
  }
}

const clock = new Clock();
// The pool's own clocks (idle times, start durations, the agent's hold timer) run on the virtual one.
Date.now = () => clock.now;
performance.now = () => clock.now;
type VirtualTimer = { cleared: boolean; unref(): VirtualTimer };
globalThis.setTimeout = ((fn: () => void, ms = 0) => {
  const timer: VirtualTimer = { cleared: false, unref: () => timer };
  clock.at(ms, () => timer.cleared || fn());
  return timer;
}) as unknown as typeof setTimeout;
globalThis.clearTimeout = ((timer?: VirtualTimer) => timer && (timer.cleared = true)) as typeof clearTimeout;
const counts: Record<string, number> = {};
const bump = (k: string, n = 1) => (counts[k] = (counts[k] ?? 0) + n);
let cpuMs = 0;
const side = (o: { pool?: string }) => (o.pool === SHARED_IMPORTS ? 'shared' : 'other');
/** A pool's side, and for another header its extra import (for the trace). */
const tag = (o: { pool?: string }) => (o.pool === SHARED_IMPORTS ? 'shared' : `other ${o.pool?.split('\n')[2]}`);
/** The pool's log lines counted: starts ready, starts cancelled, retirements by reason. */
const log = {
  info: (o: { pool?: string }, m: string) => {
    trace(`${m} [${tag(o)}]`);
    bump(`${m} [${side(o)}]`);
  },
  debug: (o: { pool?: string; reason?: string }, m: string) => {
    if (m !== 'session retired') return;
    trace(`retired [${tag(o)}]: ${o.reason}`);
    bump(`retired [${side(o)}]: ${(o.reason ?? '').split('(')[0]!.trim()}`);
  },
  error: (_o: unknown, m: string) => bump(m),
  warn: () => {},
  child: () => log,
} as unknown as Log;

let nextId = 1;
class Repl implements Poolable {
  readonly id = nextId++;
  healthy = true;
  uses = 0;
  states = 1;
  constructor(readonly header: string) {}
  usage(): Usage {
    return { rssBytes: 0, cpuSeconds: 0 };
  }
  close(): Promise<void> {
    this.healthy = false;
    return Promise.resolve();
  }
  destroy(): Promise<void> {
    return this.close();
  }
}

/** A start: the import's CPU, or what it spent until cancelled. */
function spawn(header: string, signal: AbortSignal): Promise<Repl> {
  return new Promise((resolve, reject) => {
    const t0 = clock.now;
    let over = false;
    clock.at(IMPORT_MS, () => {
      if (over) return;
      over = true;
      cpuMs += IMPORT_MS;
      resolve(new Repl(header));
    });
    signal.addEventListener('abort', () => {
      if (over) return;
      over = true;
      cpuMs += clock.now - t0;
      bump('import CPU ms spent by cancelled starts', clock.now - t0);
      reject(new Error('cancelled'));
    });
  });
}

const agent = new PoolAgent<Repl, string>({ perEnv: 2, total: 2 });
/** The daemon's pools as src/backend/index.ts makes them: the shared header's kept warm, the others on demand. */
function pool(header: string): PoolClass<Repl, string> {
  const own = header === SHARED_IMPORTS;
  const make = (gate: SlotGate) =>
    new Pool<Repl, string>({
      name: header,
      minWarm: own ? 2 : 0,
      maxSize: 2,
      idleMs: 0,
      log,
      gate,
      policy: {
        choose: (idle) => idle.length - 1,
        retire: (r) => (r.uses >= MAX_USES ? `uses (${r.uses})` : undefined),
      },
      spawn: (signal) => spawn(header, signal),
    });
  return agent.pool('bench', header, make, own);
}

const importsOf = (c: Candidate) =>
  c.header.startsWith(`${SHARED_IMPORTS}\n\n`) ? SHARED_IMPORTS : c.header.split('\n\nset_option')[0]!;
/** The header whose processes serve `c`: the shared one when `c`'s only adds modules it loaded (src/backend/loaded-imports.ts). */
const headerOf = (c: Candidate) => {
  const own = importsOf(c);
  const added = addedImports(SHARED_IMPORTS, own);
  return added?.every((m) => SHARED_LOADED.has(m)) ? SHARED_IMPORTS : own;
};

/** The key's admission: ADMIT requests in the pools at once, the others queued in order. */
const admission = { inside: 0, queue: [] as (() => void)[] };
const admit = () =>
  new Promise<void>((r) => (admission.inside < ADMIT ? (admission.inside++, r()) : admission.queue.push(r)));
const leave = () => {
  const next = admission.queue.shift();
  if (next) next();
  else admission.inside--;
};

const SHARED_LOADED = loadedModules(SHARED_IMPORTS);
const cache = new Set<string>();
/** The candidate's comment-free form (the daemon's comment memo, src/backend/comment-memo.ts, keys its commands' forms). */
const formOf = (c: Candidate) => `\u0000${commentFree(c.code)?.text ?? c.code}`;
/** Each candidate's wait for a session (admission to acquire, ms: it counts against the deadline), by header side. */
const waits = { shared: [] as number[], other: [] as number[] };
/** Candidates whose wait and check together outlast the timeout: the daemon would time them out (the model does not). */
let late = 0;
const TRACE = process.env.TRACE === '1';
const trace = (...a: unknown[]) => TRACE && console.log((clock.now / 1000).toFixed(3), ...a);

/** One candidate: a cache hit, or a session of its header for its price (to the timeout and grace, then a kill). */
async function verify(c: Candidate): Promise<void> {
  await admit();
  try {
    if (cache.has(c.code)) return void bump('cache hits');
    if (cache.has(formOf(c))) return void bump('comment memo hits');
    const p = pool(headerOf(c));
    const asked = clock.now;
    const s = side({ pool: headerOf(c) });
    if (s === 'other') trace(`#${c.id} asks [${tag({ pool: headerOf(c) })}]`);
    const r = await p.acquire(headerOf(c));
    const waited = clock.now - asked;
    waits[s].push(waited);
    // Another header's requests, and the own header's that waited longer than a start.
    if (s === 'other' || waited > IMPORT_MS) trace(`#${c.id} served after ${waited.toFixed(0)} ms [${s}]`);
    r.uses++;
    const cost = price(c.proof);
    const ms = Math.min(cost.ms * SCALE, limitMs(400_000, cost.ms));
    if (waited + ms > TIMEOUT_MS && ms <= TIMEOUT_MS) late++;
    if (ms > TIMEOUT_MS) {
      await clock.sleep(TIMEOUT_MS + GRACE_MS);
      cpuMs += TIMEOUT_MS + GRACE_MS;
      bump('timeouts');
      return p.destroy(r, 'deadline: killed after the grace period');
    }
    await clock.sleep(ms + BASE_MS);
    cpuMs += ms + BASE_MS;
    cache.add(c.code);
    cache.add(formOf(c));
    p.release(r);
  } finally {
    leave();
  }
}

/** p50, p99 and max of `xs` (nearest rank), rounded to the ms, and how many. */
function spread(xs: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.max(0, Math.ceil(q * s.length) - 1)] ?? 0);
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

async function main(): Promise<void> {
  // Warm on the shared header before the clock starts, as the bench's `settle` waits for.
  pool(SHARED_IMPORTS);
  await clock.run(() => false);
  [cpuMs, nextId] = [0, 1];
  for (const k of Object.keys(counts)) delete counts[k];
  const t0 = clock.now;
  const cands = candidates();
  let next = 0;
  let over = false;
  const clients = Array.from({ length: WORKLOAD.clients }, async () => {
    while (next < cands.length) await verify(cands[next++]!);
  });
  void Promise.all(clients).then(() => (over = true));
  await clock.run(() => over);
  const starts = Object.entries(counts)
    .filter(([k]) => /^lean session (ready|start cancelled)/.test(k))
    .reduce((a, [, n]) => a + n, 0);
  const wallS = (clock.now - t0) / 1000;
  const out = { pool: dir, admit: ADMIT, wallS, replCpuS: cpuMs / 1000, starts, proofsPerS: cands.length / wallS };
  const waitMs = { shared: spread(waits.shared), other: spread(waits.other), late };
  console.log(JSON.stringify({ ...out, waitMs, counts }, null, 1));
  await agent.destroy();
}

await main();
