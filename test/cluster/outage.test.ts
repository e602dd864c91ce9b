/**
 * NATS outages against a real nats-server: a worker (in its own process, so its death is
 * seen) that finishes a job while NATS is down stays alive and the job is answered once
 * NATS is back; and a NATS that comes back with an empty store (streams, consumers and
 * buckets lost) gets them recreated, so requests run again. Skips, saying why, when
 * nats-server is not installed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import t from 'tap';
import { Names } from '../../src/cluster/names.ts';
import { TEST_ENV } from '../helpers.ts';
import { TS_LOADER } from '../ts-loader.ts';
import { clusterApp, newRan, postCheck, reportingCheck, until, workersSeen } from './fixtures.ts';
import { natsServerOrSkip } from './nats-for-tests.ts';
import { startNatsServer } from './nats-server.ts';

const bin = natsServerOrSkip('the NATS outage tests');
if (bin) {
  // Workers are dropped after 2 s without a heartbeat, not the fixtures' 0.6 s (a loaded machine's stall).
  const cluster = { missedHeartbeats: 10 };
  const post = (content: string) => postCheck(content, TEST_ENV, { timeout_seconds: 20 });
  const isReady = (app: FastifyInstance) => async () =>
    (await app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200;
  const infos = (body: string) => (JSON.parse(body) as { tool_messages: { infos: string[] } }).tool_messages.infos;

  t.test('a worker finishing a job while NATS is down stays alive and the job is answered after', async (t) => {
    const nats = await startNatsServer(bin);
    const prefix = 'outage';
    const front = await clusterApp(nats.url, 'f', 'front', { prefix, cluster });
    // The job (1.5 s) ends inside the outage (3 s): its outcome cannot be sent until NATS is back.
    const child = spawn(
      process.execPath,
      [
        ...TS_LOADER,
        path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker-child.ts'),
        nats.url,
        'w',
        '1500',
        prefix,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (err = (err + String(d)).slice(-4000)));
    t.teardown(async () => {
      child.kill('SIGKILL');
      await front.close();
      await nats.stop();
    });
    await until(() => out.includes('ready') && workersSeen(front) === 1, 30_000, 'the child worker');
    const answer = front.inject(post('theorem across : True := trivial\n'));
    await until(() => out.includes('started'), 10_000, 'the job to start on the child');
    await nats.kill();
    await new Promise((r) => setTimeout(r, 3000));
    t.equal(child.exitCode, null, `the worker is alive through the outage ${err}`);
    await nats.restart();
    const r = await answer;
    t.equal(r.statusCode, 200, `answered after NATS returned: ${r.body}`);
    t.same(infos(r.body), ['w'], 'by the worker that ran it');
    t.equal(child.exitCode, null, `the worker is still alive ${err}`);
    t.equal(child.signalCode, null);
    await until(isReady(front), 15_000, 'the front ready again');
    const again = await front.inject(post('theorem after : True := trivial\n'));
    t.equal(again.statusCode, 200, 'the same worker takes new jobs');
  });

  t.test('NATS back with an empty store: streams, consumers and buckets are recreated', async (t) => {
    const nats = await startNatsServer(bin);
    const prefix = 'fresh';
    const ran = newRan();
    const front = await clusterApp(nats.url, 'f', 'front', { prefix, cluster });
    const w = await clusterApp(nats.url, 'w', 'worker', { prefix, cluster, check: reportingCheck('w', ran, 0) });
    t.teardown(async () => {
      await front.close();
      await w.close();
      await nats.stop();
    });
    await until(() => workersSeen(front) === 1, 10_000, 'the worker in membership');
    t.equal((await front.inject(post('theorem before : True := trivial\n'))).statusCode, 200);
    const frontMetrics = (await front.inject({ method: 'GET', url: '/metrics' })).body;
    t.match(frontMetrics, /lean_tool_cluster_worker_slots\{worker="w"\} 1/, 'per-worker load on the front');
    t.match(frontMetrics, /lean_tool_cluster_worker_oldest_job_seconds\{worker="w"\} /);
    const workerMetrics = (await w.inject({ method: 'GET', url: '/metrics' })).body;
    t.match(
      workerMetrics,
      /lean_tool_cluster_queue_wait_seconds_count\{environment="lean-test"\} 1/,
      'queue wait on the worker',
    );
    await nats.kill();
    await nats.restart({ emptyStore: true });
    await until(isReady(front), 15_000, 'the front ready again');
    await until(isReady(w), 15_000, 'the worker ready again');
    const r = await front.inject(post('theorem fresh : True := trivial\n'));
    t.equal(r.statusCode, 200, `a request runs on the rebuilt stream: ${r.body}`);
    t.same(infos(r.body), ['w']);
    // Whichever node saw the loss first recreated them (the other then found them).
    const rebuilt = (app: FastifyInstance) => (app.cluster!.status().resources as { rebuilt: number }).rebuilt;
    t.ok(rebuilt(front) + rebuilt(w) >= 1, 'a node says it recreated the lost resources');
  });

  t.test('streams deleted under a connected cluster: recreated on the next failed JetStream call', async (t) => {
    const nats = await startNatsServer(bin);
    const prefix = 'gone';
    const front = await clusterApp(nats.url, 'f', 'front', { prefix, cluster });
    const w = await clusterApp(nats.url, 'w', 'worker', { prefix, cluster, check: reportingCheck('w', newRan(), 0) });
    const nc = await connect({ servers: nats.url });
    t.teardown(async () => {
      await nc.close();
      await front.close();
      await w.close();
      await nats.stop();
    });
    await until(() => workersSeen(front) === 1, 10_000, 'the worker in membership');
    t.equal((await front.inject(post('theorem before : True := trivial\n'))).statusCode, 200);
    const jsm = await jetstreamManager(nc);
    const names = new Names(prefix);
    for (const s of [names.stream, `KV_${names.cacheBucket}`, `KV_${names.inflightBucket}`])
      await jsm.streams.delete(s);
    // No reconnect here: the first calls that fail (the worker's pulls, a request's claim) make the nodes look.
    // Until one is answered (the first may be refused while the nodes look); the last body says why if none is.
    let last = { statusCode: 0, body: '' };
    const answered = async () => {
      last = await front.inject(post(`theorem again${Date.now()} : True := trivial\n`));
      return last.statusCode === 200;
    };
    await until(answered, 20_000, 'a request answered again').catch(() => {});
    t.equal(last.statusCode, 200, last.body);
    const rebuilt = (app: FastifyInstance) => (app.cluster!.status().resources as { rebuilt: number }).rebuilt;
    t.ok(rebuilt(front) + rebuilt(w) >= 1, 'a node recreated them');
    t.ok((await jsm.streams.info(names.stream)).config.subjects.length > 0, 'the work stream exists again');
  });
}
