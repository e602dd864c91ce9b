/**
 * Startup to the first 200: spawn → first successful GET /v1/environments, polled every
 * 5 ms. Interleaved rounds of the daemon as `npm start` runs it (node dist/main.js, the
 * default configuration: the bundle with V8's code cache), a bare fastify app (the floor), and
 * for reference the same bundle without the cache (node dist/daemon.cjs: Node compiles it), the
 * daemon compiled at start by tsx and `npm start` itself (npm's own start-up included).
 */
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { interleave, spread } from '../load.ts';
import { cpuMeter, treeTicks, type CpuShare } from '../proc.ts';
import { BENCH_DIR, ROOT } from '../servers.ts';
import { round, type ScenarioResult } from '../lib.ts';

const get = (url: string) =>
  new Promise<number>((resolve) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });

interface StartRun {
  ms: number;
  /** CPU time the process tree used until the first 200 (robust to outside load). */ cpuMs: number;
  cpu: CpuShare;
}

/** A port nobody listens on now (others' processes share this machine). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net
      .createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      })
      .on('error', reject);
  });

async function timeToFirst200(argv: string[]): Promise<StartRun> {
  const port = await freePort();
  const meter = cpuMeter();
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-2000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  try {
    for (;;) {
      if ((await get(`http://127.0.0.1:${port}/v1/environments`)) === 200) {
        const ms = performance.now() - t0;
        return { ms, cpuMs: treeTicks(child.pid!) * 10, cpu: meter.stop() };
      }
      if (child.exitCode !== null) throw new Error(`${argv.join(' ')} exited (${child.exitCode}): ${output}`);
      if (performance.now() - t0 > 30_000) throw new Error(`${argv.join(' ')}: no 200 within 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    // The whole group: `npm start` runs the daemon as its grandchild.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startupScenario(opts: { rounds?: number } = {}): Promise<ScenarioResult> {
  const rounds = opts.rounds ?? 5;
  // Build first (what prestart does), so the rounds time starting, not compiling; the warm-up
  // start below writes the code cache if this build has none yet.
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-if-stale.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('build failed');
  const targets: Record<string, string[]> = {
    'daemon (node dist/main.js)': [process.execPath, path.join(ROOT, 'dist', 'main.js')],
    'bare fastify': [process.execPath, path.join(BENCH_DIR, 'baselines', 'bare-fastify.mjs')],
    'daemon without its code cache (node dist/daemon.cjs)': [process.execPath, path.join(ROOT, 'dist', 'daemon.cjs')],
    'daemon through tsx (before)': [process.execPath, '--import', 'tsx', path.join(ROOT, 'src', 'main.ts')],
    'npm start (npm included)': ['npm', 'start', '--silent'],
  };
  // Rotating order per round after one warm-up start of each (file cache warm for all).
  const samples = await interleave(Object.keys(targets), rounds, (t) => timeToFirst200(targets[t]!));
  const of = (t: string) => spread(samples.filter((s) => s.target === t).map((s) => s.result.ms));
  const d = of('daemon (node dist/main.js)');
  const ratio = d.median / of('bare fastify').median;
  const noisy = samples.some((s) => s.result.cpu.noisy);
  const outside = spread(samples.map((s) => s.result.cpu.outside));
  const cpuOf = (t: string) => spread(samples.filter((s) => s.target === t).map((s) => s.result.cpuMs));
  const row = (t: string): [string, string, string] => {
    const x = of(t);
    return [
      t,
      `${round(x.median, 1)} ms (min ${round(x.min, 1)}, max ${round(x.max, 1)})`,
      `CPU to first 200: ${cpuOf(t).median} ms (median; 10 ms ticks)`,
    ];
  };
  return {
    name: 'startup',
    summary: `first 200 after ${round(d.median, 1)} ms (median of ${rounds}; target within 1.2× of bare fastify) for the daemon as npm start runs it; bare fastify ${round(of('bare fastify').median, 1)} ms`,
    figures: Object.fromEntries([
      ...Object.keys(targets).map((t) => [t, { wallMs: of(t), cpuMs: cpuOf(t) }]),
      ['outside', outside],
    ]),
    table: [
      ...Object.keys(targets).map(row),
      [
        'daemon ÷ bare fastify, wall time',
        `${round(ratio, 2)}×`,
        'how far the machine load, not the daemon, explains the figure',
      ],
      [
        'daemon ÷ bare fastify, CPU to the first 200',
        `${round(cpuOf('daemon (node dist/main.js)').median / cpuOf('bare fastify').median, 2)}×`,
        'medians of 10 ms ticks: what the start costs, whatever the load (the target is wall time)',
      ],
      [
        'outside CPU share',
        `${Math.round(outside.median * 1000) / 10}% (max ${Math.round(outside.max * 1000) / 10}%)`,
        noisy ? 'NOISY: other processes used > 10% of the machine in some rounds' : 'quiet',
      ],
    ],
    targets: [
      {
        target: 'startup within 1.2× of bare fastify (wall, to the first 200)',
        figure: `${round(ratio, 2)}× (${round(d.median, 1)} vs ${round(of('bare fastify').median, 1)} ms)`,
        pass: ratio <= 1.2,
        noisy,
      },
    ],
    roundsHeader: ['round', 'target', 'ms to first 200', 'CPU ms', 'outside CPU', ''],
    rounds: samples.map((s) => [
      String(s.round),
      s.target,
      String(round(s.result.ms, 1)),
      String(s.result.cpuMs),
      `${Math.round(s.result.cpu.outside * 1000) / 10}%`,
      s.result.cpu.noisy ? 'noisy' : '',
    ]),
  };
}
