/** Start the daemon and the baselines as their own processes, each reached over loopback HTTP. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { openSync, writeFileSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigInput } from '../src/config.ts';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH_DIR, '..');
export const BENCH_KEY = 'bench-key-0001';

export interface Server {
  name: string;
  url: string;
  pid: number;
  stop: () => Promise<void>;
  /** The daemon's process.memoryUsage() (bench/daemon.ts answers SIGUSR2 on stderr). */
  memory: () => Promise<NodeJS.MemoryUsage>;
}

/** A scratch directory for config overlays, response files and logs of this run. */
export const scratch = mkdtempSync(path.join(os.tmpdir(), 'lean-tool-bench-'));

/** `taskset -c <cpus>` prefix when pinning is asked for. */
const pinned = (cpus: string | undefined, argv: string[]) => (cpus ? ['taskset', '-c', cpus, ...argv] : argv);

async function spawnServer(
  name: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  stdoutFile: string,
  readyPath: string,
): Promise<Server> {
  const out = openSync(stdoutFile, 'w');
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', out, 'pipe'],
    cwd: ROOT,
  });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (c: string) => {
      stderr += c;
      const m = /BENCH_READY (\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) =>
      reject(new Error(`${name} exited (${String(code)}) before it was ready: ${stderr.slice(-2000)}`)),
    );
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url + readyPath);
  const memory = () =>
    new Promise<NodeJS.MemoryUsage>((resolve) => {
      const from = stderr.length;
      const onData = () => {
        const m = /BENCH_MEMORY (\{.*\})\n/.exec(stderr.slice(from));
        if (!m) return;
        child.stderr!.off('data', onData);
        resolve(JSON.parse(m[1]!) as NodeJS.MemoryUsage);
      };
      child.stderr!.on('data', onData);
      child.kill('SIGUSR2');
    });
  return {
    name,
    url,
    pid: child.pid!,
    memory,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/** Polls until the server answers anything (uvicorn announces its port before it listens). */
export async function waitFor(url: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get(url, (res) => {
          res.resume();
          resolve(true);
        })
        .on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The daemon in its default configuration plus `overlay` (keys, environments, limits). */
export async function startDaemon(
  overlay: ConfigInput,
  opts: { cpus?: string; tag?: string; nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<Server> {
  const file = path.join(scratch, `daemon-${opts.tag ?? 'main'}.json`);
  writeFileSync(file, JSON.stringify(overlay));
  return spawnServer(
    'daemon',
    pinned(opts.cpus, [
      process.execPath,
      ...(process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean),
      ...(opts.nodeArgs ?? []),
      '--import',
      'tsx',
      path.join(BENCH_DIR, 'daemon.ts'),
    ]),
    { ...opts.env, LEAN_TOOL_CONFIG: file },
    path.join(scratch, `daemon-${opts.tag ?? 'main'}.log`),
    '/v1/status',
  );
}

export function startBareFastify(responseFile: string): Promise<Server> {
  return spawnServer(
    'bare fastify',
    [
      process.execPath,
      ...(process.env.BENCH_BARE_NODE_ARGS ?? '').split(' ').filter(Boolean),
      path.join(BENCH_DIR, 'baselines', 'bare-fastify.mjs'),
    ],
    { BENCH_RESPONSE_FILE: responseFile },
    '/dev/null',
    '/v1/environments',
  );
}

/** FastAPI/uvicorn from Debian's packages; a reason string when they are not installed. */
export async function startUvicorn(responseFile: string): Promise<Server | string> {
  const py = '/usr/bin/python3';
  const probe = spawnSync(py, ['-c', 'import fastapi, uvicorn; print(fastapi.__version__, uvicorn.__version__)'], {
    encoding: 'utf8',
  });
  if (probe.status !== 0)
    return `FastAPI/uvicorn baseline skipped: ${py} cannot import fastapi and uvicorn (apt-get install python3-fastapi python3-uvicorn)`;
  const s = await spawnServer(
    `FastAPI ${probe.stdout.trim().split(' ')[0]} / uvicorn ${probe.stdout.trim().split(' ')[1]}`,
    [py, path.join(BENCH_DIR, 'baselines', 'fastapi_app.py')],
    { BENCH_RESPONSE_FILE: responseFile },
    '/dev/null',
    '/',
  );
  return s;
}

/** Environments for the overlay: one environment served by the fake REPL. */
export const benchEnvironment = {
  name: 'bench',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: 'import Mathlib',
  project_dir: path.join(ROOT, 'test', 'fixtures'),
};

export function post(
  url: string,
  body: string,
  key = BENCH_KEY,
): Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
