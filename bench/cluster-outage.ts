/**
 * A NATS outage in the middle of cluster jobs, measured on loopback: a front (this process)
 * and worker processes (the test fixtures' stand-in tool: it waits JOB_MS, no Lean) each
 * running one job when nats-server is killed; the server comes back after OUTAGE seconds on
 * the same port and store (or an empty store with `--empty-store`). Prints, as JSON: the
 * workers still alive, each request's status and when it was answered after NATS returned,
 * and the status of requests sent after. `node --import tsx bench/cluster-outage.ts 10 4`
 * (outage seconds, workers; `--idle`: no job running when NATS goes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterApp, postCheck, until, workersSeen } from '../test/cluster/fixtures.ts';
import { natsServerPath, NO_NATS_REASON, startNatsServer } from '../test/cluster/nats-server.ts';
import { TEST_ENV } from '../test/helpers.ts';
import { TS_LOADER } from '../test/ts-loader.ts';

const OUTAGE_S = Number(process.argv[2] ?? 10);
const WORKERS = Number(process.argv[3] ?? 4);
const EMPTY = process.argv.includes('--empty-store');
/** No job running when NATS goes (the lost-state case alone). */
const IDLE = process.argv.includes('--idle');
const JOB_MS = 2000;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/cluster/worker-child.ts');

const bin = natsServerPath();
if (!bin) {
  console.log(`skipped: ${NO_NATS_REASON}`);
  process.exit(0);
}
const nats = await startNatsServer(bin);
const prefix = 'outage';
const front = await clusterApp(nats.url, 'front', 'front', { prefix, cluster: { missedHeartbeats: 10 } });
const children: { child: ChildProcess; out: string; err: string }[] = [];
for (let i = 0; i < WORKERS; i++) {
  const child = spawn(process.execPath, [...TS_LOADER, CHILD, nats.url, `w${i}`, String(JOB_MS), prefix], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const c = { child, out: '', err: '' };
  child.stdout!.on('data', (d) => (c.out += String(d)));
  child.stderr!.on('data', (d) => (c.err = (c.err + String(d)).slice(-2000)));
  children.push(c);
}
const post = (content: string) => postCheck(content, TEST_ENV, { timeout_seconds: OUTAGE_S + 30 });
try {
  await until(() => workersSeen(front) === WORKERS, 60_000, 'the workers');
  let back = 0;
  const answers = Array.from({ length: IDLE ? 0 : WORKERS }, (_x, i) =>
    front
      .inject(post(`theorem t${i} : True := trivial\n`))
      .then((r) => ({ status: r.statusCode, afterBackMs: Date.now() - back })),
  );
  if (!IDLE) await until(() => children.every((c) => c.out.includes('started')), 30_000, 'every worker busy');
  await nats.kill();
  await new Promise((r) => setTimeout(r, OUTAGE_S * 1000));
  const aliveAtReturn = children.filter((c) => c.child.exitCode === null).length;
  await nats.restart({ emptyStore: EMPTY });
  back = Date.now();
  const results = await Promise.all(answers);
  // null: not ready within 30 s (no live worker left, or the cluster's resources gone).
  const readyAfterMs = await until(
    async () => (await front.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200,
    30_000,
  ).then(
    () => Date.now() - back,
    () => null,
  );
  const t0 = Date.now();
  const after = await Promise.all(
    Array.from({ length: WORKERS * 2 }, (_x, i) => front.inject(post(`theorem after${i} : True := trivial\n`))),
  );
  const afterMs = Date.now() - t0;
  console.log(
    JSON.stringify(
      {
        outageSeconds: OUTAGE_S,
        emptyStore: EMPTY,
        workers: WORKERS,
        jobMs: JOB_MS,
        aliveAtReturn,
        aliveAtEnd: children.filter((c) => c.child.exitCode === null).length,
        inFlight: results,
        frontReadyAfterMs: readyAfterMs,
        afterStatuses: after.map((r) => r.statusCode),
        afterMs,
        afterError: after.find((r) => r.statusCode !== 200)?.json().error?.message,
        load: os.loadavg().map((l) => Math.round(l * 100) / 100),
        workerErrors: children.map((c) => c.err.split('\n').find((l) => /Error/.test(l)) ?? ''),
      },
      null,
      2,
    ),
  );
} finally {
  for (const c of children) c.child.kill('SIGKILL');
  await front.close();
  await nats.stop();
}
