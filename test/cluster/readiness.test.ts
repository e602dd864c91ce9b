/**
 * Liveness and readiness of fronts and workers against a real nats-server that dies and
 * comes back (issue 24): readiness follows the loss of the last worker and of NATS within
 * 5 s and recovers by itself; a front that cannot publish fails within 2 s with a clear
 * message while a job already queued keeps its deadline; every connection state change is
 * counted. Skips, saying why, when nats-server is not installed.
 */
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { TEST_ENV } from '../helpers.ts';
import { clusterApp, newRan, postCheck, reportingCheck, until, workersSeen } from './fixtures.ts';
import { natsServerOrSkip } from './nats-for-tests.ts';
import { startNatsServer } from './nats-server.ts';

const bin = natsServerOrSkip('the readiness tests');
if (bin) {
  const ready = async (app: FastifyInstance) => {
    const r = await app.inject({ method: 'GET', url: '/health/ready' });
    return { code: r.statusCode, reasons: (r.json() as { reasons: string[] }).reasons };
  };
  const isReady = (app: FastifyInstance) => async () => (await ready(app)).code === 200;
  const isUnready = (app: FastifyInstance) => async () => (await ready(app)).code === 503;
  const post = (content: string) => postCheck(content, TEST_ENV, { timeout_seconds: 30 });

  t.test('readiness follows the last worker and NATS, and recovers by itself', async (t) => {
    const nats = await startNatsServer(bin);
    const prefix = 'ready';
    const ran = newRan();
    const check = reportingCheck('w', ran, 0);
    // A worker is dropped after 2 s without a heartbeat (not the fixtures' 0.6 s, which a stall of this process's
    // event loop on a loaded machine could pass, making the live worker look gone): still well within the 5 s.
    const cluster = { missedHeartbeats: 10 };
    const front = await clusterApp(nats.url, 'f', 'front', { prefix, cluster });
    let w = await clusterApp(nats.url, 'w', 'worker', { prefix, cluster, check });
    t.teardown(async () => {
      await front.close();
      await w.close();
      await nats.stop();
    });
    t.equal((await front.inject({ method: 'GET', url: '/health/live' })).statusCode, 200, 'live');
    await until(isReady(front), 5000, 'the front ready');
    await until(isReady(w), 5000, 'the worker ready');

    // The last worker of the environment leaves.
    await w.close();
    await until(isUnready(front), 5000, 'the front unready without workers');
    t.match((await ready(front)).reasons.join('\n'), /no live worker/);
    w = await clusterApp(nats.url, 'w2', 'worker', { prefix, cluster, check: reportingCheck('w2', ran, 2500) });
    await until(isReady(front), 5000, 'the front ready again when a worker joins');

    // NATS dies while a 2.5 s job runs.
    await until(() => workersSeen(front) === 1, 5000, 'the worker in membership');
    const queued = front.inject(post('theorem queued : True := trivial\n'));
    await until(
      () => ran.count === 0 && (w.cluster!.status().worker as { busy: number }).busy === 1,
      5000,
      'the job to start',
    );
    await nats.kill();
    await until(isUnready(front), 5000, 'the front unready without NATS');
    await until(isUnready(w), 5000, 'the worker unready without NATS');
    t.match((await ready(front)).reasons.join('\n'), /NATS is unreachable/);
    const status = (await front.inject({ method: 'GET', url: '/v1/status' })).json();
    t.match(status.cluster, { connected: false, readiness: { ready: false } }, '/v1/status no longer says connected');
    t.equal(
      (await front.inject({ method: 'GET', url: '/health/live' })).statusCode,
      200,
      'still live: a restart would not help',
    );
    const refused = await front.inject(post('theorem during : True := trivial\n'));
    t.equal(refused.statusCode, 503);
    t.match(refused.json().error.message, /NATS is unreachable from this front/);

    await nats.restart();
    await until(isReady(front), 15_000, 'the front ready again after NATS returned');
    await until(isReady(w), 15_000, 'the worker ready again after NATS returned');
    const r = await queued;
    t.equal(r.statusCode, 200, 'the job queued before the outage was answered within its deadline');
    t.equal((await front.inject(post('theorem after : True := trivial\n'))).statusCode, 200, 'new requests run again');
    const metrics = (await front.inject({ method: 'GET', url: '/metrics' })).body;
    t.match(metrics, /lean_tool_nats_connection_events_total\{event="disconnect"\} [1-9]/, 'the disconnect counted');
    t.match(metrics, /lean_tool_nats_connection_events_total\{event="reconnect"\} [1-9]/, 'the reconnect counted');
    t.match(metrics, /lean_tool_nats_connected 1/);
    t.match(metrics, /lean_tool_cluster_live_workers\{environment="lean-test"\} 1/);
  });
}
