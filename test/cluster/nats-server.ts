/**
 * A real nats-server (Debian's package) with JetStream on a free loopback port and a
 * throwaway store, for the cluster tests and bench. `natsServerPath()` is undefined when
 * the binary is absent: callers skip, saying why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function natsServerPath(): string | undefined {
  // Set, it is the only candidate (NATS_SERVER_BIN=none runs the cluster files as on a machine without NATS).
  if (process.env.NATS_SERVER_BIN !== undefined)
    return existsSync(process.env.NATS_SERVER_BIN) ? process.env.NATS_SERVER_BIN : undefined;
  const candidates = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.push(path.join(dir, 'nats-server'));
  return candidates.find((c): c is string => !!c && existsSync(c));
}

export const NO_NATS_REASON = 'nats-server is not installed (Debian package nats-server; .ci/run installs it)';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

export interface NatsServer {
  url: string;
  /** SIGKILL, like a crash (the store stays). */
  kill(): Promise<void>;
  /** Starts again on the same port (after kill), on the same store or, with `emptyStore`, on an empty one (every stream lost). */
  restart(opts?: { emptyStore?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

async function spawnServer(bin: string, port: number, dir: string): Promise<ChildProcess> {
  const child: ChildProcess = spawn(bin, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  const deadline = Date.now() + 10_000;
  while (!(await reachable(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nats-server did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

export async function startNatsServer(bin: string): Promise<NatsServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lean-tool-nats-'));
  const port = await freePort();
  let child = await spawnServer(bin, port, dir);
  const exit = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    kill: () => exit('SIGKILL'),
    async restart(opts = {}) {
      if (opts.emptyStore) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      }
      child = await spawnServer(bin, port, dir);
    },
    async stop() {
      await exit('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
