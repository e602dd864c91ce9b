/**
 * Scale-out against a real nats-server (JetStream on a loopback port): one front and two
 * workers; a worker killed mid-job; the shared cache; cluster-wide de-duplication.
 * Skips, saying why, when nats-server is not installed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import t from 'tap';
import { TEST_ENV } from '../helpers.ts';
import { clusterApp as fixtureApp, newRan, postCheck, reportingCheck, until, workersSeen } from './fixtures.ts';
import { natsServerForFile, natsServerOrSkip } from './nats-for-tests.ts';
import { TS_LOADER } from '../ts-loader.ts';

const bin = natsServerOrSkip('the cluster tests');

/**
 * The fixtures' daemons, dropping a worker after 2 s without a heartbeat instead of 0.6 s: fronts and workers
 * share this process's event loop, and on a loaded machine a stall of 0.6 s makes every worker look gone (a
 * front then refuses with 503; search/cluster failed so at load 11). No test here waits for a worker's drop.
 */
const clusterApp: typeof fixtureApp = (url, nodeId, role, extra = {}) =>
  fixtureApp(url, nodeId, role, { ...extra, cluster: { missedHeartbeats: 10, ...extra.cluster } });
if (bin) {
  const nats = natsServerForFile(bin);

  const post = (content: string) => postCheck(content);

  t.test('one front and two workers: the front answers through the workers and shows the cluster', async (t) => {
    const prefix = 'basic';
    const ranA = newRan(),
      ranB = newRan();
    const a = await clusterApp(nats.url, 'wa', 'worker', { prefix, check: reportingCheck('wa', ranA, 100) });
    const b = await clusterApp(nats.url, 'wb', 'worker', { prefix, check: reportingCheck('wb', ranB, 100) });
    // The front has no Lean of its own: its probe finds none.
    const front = await clusterApp(nats.url, 'f1', 'front', {
      prefix,
      check: reportingCheck('front', newRan()),
      probe: () => ({ available: false, reason: 'no Lean on the front (test)' }),
    });
    t.teardown(async () => {
      await front.close();
      await a.close();
      await b.close();
    });
    await until(() => workersSeen(front) === 2, 10_000, 'two workers in membership');
    // Four jobs of 100 ms at once, one slot per worker: both workers must take some.
    const rs = await Promise.all([0, 1, 2, 3].map((i) => front.inject(post(`theorem t${i} : True := trivial\n`))));
    for (const r of rs) {
      t.equal(r.statusCode, 200);
      t.equal(r.headers['x-cache'], 'miss');
      t.not(r.json().tool_messages.infos[0], 'front', 'run by a worker, not the front');
    }
    t.equal(ranA.count + ranB.count, 4, 'each job ran once');
    t.ok(ranA.count > 0 && ranB.count > 0, `both workers took work (a ${ranA.count}, b ${ranB.count})`);
    const status = (await front.inject({ method: 'GET', url: '/v1/status' })).json();
    t.equal(status.cluster.role, 'front');
    t.same(status.cluster.workers.map((w: { node: string }) => w.node).sort(), ['wa', 'wb']);
    t.ok(
      Array.isArray(status.cluster.queues) &&
        status.cluster.queues.some((q: { subject: string }) => q.subject === 'basic.work.lean-test.plain'),
      'queue depth per subject',
    );
    // The workers' environments, as the front sees them (lean-test available on the workers, not on the front itself).
    const envs = (await front.inject({ method: 'GET', url: '/v1/environments' })).json() as {
      name: string;
      available: boolean;
    }[];
    t.same(
      envs.map((e) => [e.name, e.available]),
      [
        ['lean-test', true],
        ['lean-missing', false],
      ],
    );
    const metrics = (await front.inject({ method: 'GET', url: '/metrics' })).body;
    t.match(metrics, /lean_tool_cluster_jobs_total\{route="fallback"\} 4/);
    t.match(metrics, /lean_tool_requests_total\{tool="check",status="200"\} 4/);
  });

  t.test('a worker killed mid-job: the job is redelivered, finished elsewhere, answered exactly once', async (t) => {
    const prefix = 'kill';
    const front = await clusterApp(nats.url, 'f1', 'front', { prefix });
    const child = spawn(
      process.execPath,
      [
        ...TS_LOADER,
        path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker-child.ts'),
        nats.url,
        'doomed',
        '5000',
        prefix,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    const later: { survivor?: Awaited<ReturnType<typeof clusterApp>> } = {};
    t.teardown(async () => {
      child.kill('SIGKILL');
      await front.close();
      await later.survivor?.close();
    });
    // Count every outcome published for any request: the client must get one answer, and only one is sent.
    const nc = await connect({ servers: nats.url });
    t.teardown(() => nc.close());
    const outcomes: string[] = [];
    nc.subscribe(`${prefix}.outcome.*`, { callback: (_e, m) => void outcomes.push(m.string()) });
    await until(() => out.includes('ready') && workersSeen(front) === 1, 30_000, 'the child worker');
    const answer = front.inject(post('theorem doomed : True := trivial\n'));
    await until(() => out.includes('started'), 10_000, 'the job to start on the child');
    const ranS = newRan();
    const survivor = await clusterApp(nats.url, 'survivor', 'worker', {
      prefix,
      check: reportingCheck('survivor', ranS, 50),
    });
    later.survivor = survivor;
    child.kill('SIGKILL');
    const r = await answer;
    t.equal(r.statusCode, 200);
    t.equal(r.json().tool_messages.infos[0], 'survivor', 'completed by the surviving worker');
    t.equal(ranS.count, 1);
    await new Promise((r) => setTimeout(r, 300));
    t.equal(outcomes.length, 1, 'exactly one outcome was published');
    t.match(
      (await survivor.inject({ method: 'GET', url: '/metrics' })).body,
      /lean_tool_cluster_redeliveries_total 1/,
      'the survivor saw a redelivery',
    );
  });

  t.test('a job every worker dies on is answered once maxDeliver is spent, not at the deadline', async (t) => {
    const prefix = 'poison';
    const cluster = { maxDeliver: 2 };
    const front = await clusterApp(nats.url, 'f1', 'front', { prefix, cluster });
    t.teardown(() => front.close());
    let started = 0;
    const doomed = async (id: string) =>
      clusterApp(nats.url, id, 'worker', {
        prefix,
        cluster,
        check: reportingCheck(id, newRan(), 30_000, () => void started++),
      });
    await doomed('w1').then(async (w1) => {
      await until(() => workersSeen(front) === 1, 10_000, 'the first worker');
      const answer = front.inject({
        ...post('theorem poison : True := trivial\n'),
        payload: JSON.stringify({
          content: 'theorem poison : True := trivial\n',
          environment: TEST_ENV,
          timeout_seconds: 60,
        }),
      });
      await until(() => started === 1, 10_000, 'the first delivery');
      await w1.cluster!.kill();
      await w1.close();
      const w2 = await doomed('w2');
      await until(() => started === 2, 10_000, 'the second delivery');
      await w2.cluster!.kill();
      await w2.close();
      // JetStream notices the spent job when a worker next asks for work.
      const w3 = await clusterApp(nats.url, 'w3', 'worker', { prefix, cluster, check: reportingCheck('w3', newRan()) });
      t.teardown(() => w3.close());
      const r = await answer;
      t.equal(r.statusCode, 500);
      t.match(r.json().error.message, /delivered 2 times and no worker finished it/);
      await until(
        async () =>
          (
            (await front.inject({ method: 'GET', url: '/v1/status' })).json().cluster.queues as {
              inProgress: number;
              pending: number;
            }[]
          ).every((q) => q.inProgress === 0 && q.pending === 0),
        5000,
        'the job to leave the stream',
      );
    });
  });

  t.test('role both with NATS: front and worker in one process, joined by a plain worker', async (t) => {
    const prefix = 'both';
    const ranSelf = newRan(),
      ranW = newRan();
    const self = await clusterApp(nats.url, 'self', 'both', { prefix, check: reportingCheck('self', ranSelf, 100) });
    const w = await clusterApp(nats.url, 'w1', 'worker', { prefix, check: reportingCheck('w1', ranW, 100) });
    t.teardown(async () => {
      await self.close();
      await w.close();
    });
    await until(() => workersSeen(self) === 2, 10_000, 'itself and the worker');
    const rs = await Promise.all([0, 1, 2, 3].map((i) => self.inject(post(`theorem b${i} : True := trivial\n`))));
    t.same(
      rs.map((r) => r.statusCode),
      [200, 200, 200, 200],
    );
    t.equal(ranSelf.count + ranW.count, 4);
    t.ok(ranSelf.count > 0 && ranW.count > 0, `both took work (self ${ranSelf.count}, w1 ${ranW.count})`);
    const status = (await self.inject({ method: 'GET', url: '/v1/status' })).json();
    t.equal(status.cluster.role, 'both');
    t.match(status.cluster.worker, { node: 'self', slots: 1 });
  });

  t.test('the shared cache: a second front answers from the bucket without computing', async (t) => {
    const prefix = 'shared';
    const ran = newRan();
    const w = await clusterApp(nats.url, 'w1', 'worker', { prefix, check: reportingCheck('w1', ran) });
    const f1 = await clusterApp(nats.url, 'f1', 'front', { prefix });
    const f2 = await clusterApp(nats.url, 'f2', 'front', { prefix });
    t.teardown(async () => {
      await f1.close();
      await f2.close();
      await w.close();
    });
    await until(() => workersSeen(f1) === 1, 10_000, 'the worker');
    const first = await f1.inject(post('theorem shared : True := trivial\n'));
    t.equal(first.headers['x-cache'], 'miss');
    const second = await f2.inject(post('theorem shared : True := trivial\n'));
    t.equal(second.statusCode, 200);
    t.equal(second.headers['x-cache'], 'hit', 'f2 never computed it: a shared-cache hit');
    t.same(second.json().tool_messages, first.json().tool_messages);
    t.equal(ran.count, 1, 'computed once');
    const third = await f2.inject(post('theorem shared : True := trivial\n'));
    t.equal(third.headers['x-cache'], 'hit', 'now from f2 local cache');
    t.match(
      (await f2.inject({ method: 'GET', url: '/metrics' })).body,
      /lean_tool_shared_cache_lookups_total\{result="hit"\} 1/,
    );
  });

  t.test('duplicate concurrent requests, on two fronts, are computed once', async (t) => {
    const prefix = 'dedupe';
    const ranA = newRan(),
      ranB = newRan();
    const a = await clusterApp(nats.url, 'wa', 'worker', { prefix, check: reportingCheck('wa', ranA, 400) });
    const b = await clusterApp(nats.url, 'wb', 'worker', { prefix, check: reportingCheck('wb', ranB, 400) });
    const f1 = await clusterApp(nats.url, 'f1', 'front', { prefix });
    const f2 = await clusterApp(nats.url, 'f2', 'front', { prefix });
    t.teardown(async () => {
      await f1.close();
      await f2.close();
      await a.close();
      await b.close();
    });
    await until(() => workersSeen(f1) === 2 && workersSeen(f2) === 2, 10_000, 'two workers');
    const same = 'theorem dup : True := trivial\n';
    const rs = await Promise.all([f1, f2, f1, f2, f1, f2].map((f) => f.inject(post(same))));
    for (const r of rs) t.equal(r.statusCode, 200);
    // The same result, up to what is per request (timings, info.request_id).
    const essence = (body: string) => {
      const { timings: _t, info: _i, ...rest } = JSON.parse(body) as Record<string, unknown>;
      return JSON.stringify(rest);
    };
    t.equal(new Set(rs.map((r) => essence(r.body))).size, 1, 'everyone got the same result');
    t.equal(ranA.count + ranB.count, 1, 'computed once cluster-wide');
  });
}
