/**
 * Kimina Lean Server (project-numina/kimina-lean-server) run from its source, outside the
 * repository, for side-by-side benchmarks: KIMINA_DIR holds its source (server/, client/),
 * KIMINA_PY a Python ≥ 3.10 with pydantic 2 and pydantic-settings, KIMINA_PYTHONPATH what else it
 * imports (FastAPI, uvicorn, loguru, psutil, its client, stand-ins for prisma and Google Cloud logging).
 * Its REPL command is `lake env <repl>`: a `lake` written to the scratch folder runs the given REPL
 * stand-in instead, so Kimina's REPL process is that script.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { processTree } from '../src/backend/process/rss.ts';
import { BENCH_KEY, scratch, waitFor } from './servers.ts';

export interface KiminaServer {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

const python = () => process.env.KIMINA_PY ?? 'python3';
const pythonPath = () => [process.env.KIMINA_DIR!, process.env.KIMINA_PYTHONPATH ?? ''].filter(Boolean).join(':');

/** Why Kimina cannot run here, or undefined when it can. */
export function kiminaUnavailable(): string | undefined {
  const dir = process.env.KIMINA_DIR;
  if (!dir) return 'KIMINA_DIR is not set (a checkout of project-numina/kimina-lean-server; docs/rl-workload.md)';
  if (!existsSync(path.join(dir, 'server', 'main.py'))) return `KIMINA_DIR=${dir} holds no server/main.py`;
  const probe = spawnSync(python(), ['-c', 'import server.main'], {
    cwd: dir,
    env: { ...process.env, PYTHONPATH: pythonPath() },
    encoding: 'utf8',
  });
  if (probe.status !== 0)
    return `${python()} cannot import Kimina's server: ${(probe.stderr || String(probe.error)).trim().split('\n').at(-1)}`;
  return undefined;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** A `lake` that runs `node <script>` whatever it is asked (Kimina starts `lake env <repl>`). */
function lakeShim(script: string): string {
  const dir = path.join(scratch, 'kimina-bin');
  mkdirSync(dir, { recursive: true });
  const lake = path.join(dir, 'lake');
  writeFileSync(lake, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(script)}\n`);
  chmodSync(lake, 0o755);
  return dir;
}

/**
 * Kimina in its quietest configuration (prod, WARNING: its defaults spend most of their CPU rendering
 * logs), `pool` REPLs at most, all started on `header` before it serves.
 */
export async function startKimina(o: {
  script: string;
  pool: number;
  header: string;
  tag: string;
}): Promise<KiminaServer> {
  const port = await freePort();
  const log = openSync(path.join(scratch, `kimina-${o.tag}.log`), 'w');
  const child = spawn(python(), ['-m', 'server'], {
    cwd: process.env.KIMINA_DIR,
    env: {
      ...process.env,
      PYTHONPATH: pythonPath(),
      PATH: `${lakeShim(o.script)}:${process.env.PATH ?? ''}`,
      LEAN_SERVER_HOST: '127.0.0.1',
      LEAN_SERVER_PORT: String(port),
      LEAN_SERVER_MAX_REPLS: String(o.pool),
      LEAN_SERVER_INIT_REPLS: JSON.stringify({ [o.header]: o.pool }),
      LEAN_SERVER_PROJECT_DIR: scratch,
      LEAN_SERVER_REPL_PATH: 'repl',
      // RLIMIT_AS caps address space, which V8 reserves far beyond what it uses: no cap for a node stand-in.
      LEAN_SERVER_MAX_REPL_MEM: '64G',
      LEAN_SERVER_API_KEY: BENCH_KEY,
      LEAN_SERVER_ENVIRONMENT: 'prod',
      LEAN_SERVER_LOG_LEVEL: 'WARNING',
    },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/health`, 120_000);
  return { url, pid: child.pid!, stop: () => stopTree(child.pid!) };
}

/** SIGTERM the server, then SIGKILL whatever of its tree is left (its REPLs run in sessions of their own). */
async function stopTree(pid: number): Promise<void> {
  const tree = processTree(pid);
  const kill = (p: number, s: NodeJS.Signals) => {
    try {
      process.kill(p, s);
    } catch {
      // already gone
    }
  };
  kill(pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 3000));
  for (const p of tree) kill(p, 'SIGKILL');
}
