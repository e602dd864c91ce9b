/** The daemon as a child process on a random loopback port, as `npm start` runs it. */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Test } from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';

/** The start of the daemon's "listening" log line (src/main.ts). */
export const LISTENING = 'lean tool service listening';

export interface DaemonProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  port: number;
  /** Its standard output so far (the JSON log lines). */
  output: () => string;
  /** Its standard error so far. */
  errors: () => string;
}

/**
 * Starts `node <args>` and waits for its "listening" line, or for it to exit (a daemon that never
 * listens fails the test at tap's own timeout, not at a wall-clock bound of ours: on a busy machine
 * a start can take long); killed with the test if still running.
 */
export async function startDaemonProcess(t: Test, args: string[], env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(LISTENING)) resolve();
    });
    child.once('exit', () => resolve());
  });
  return { child, port, output: () => out, errors: () => err };
}
