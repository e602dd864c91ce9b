/**
 * What an operator relies on (issue 24), against a real nats-server: workers take only jobs
 * of environments they can run and the front refuses at once what none can; a claim left by
 * a dead front blocks nobody for long; a job larger than NATS can carry is a permanent 413;
 * malformed messages are dropped at the boundary and counted.
 * Skips, saying why, when nats-server is not installed.
 */
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import t, { type Test } from 'tap';
import { ResultCache } from '../../src/cache/result-cache.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import type { Probe } from '../../src/envs/registry.ts';
import { TEST_ENV, testEnvironments } from '../helpers.ts';
import { clusterApp, newRan, postCheck, reportingCheck, until, workersSeen, type Ran } from './fixtures.ts';
import { natsServerForFile, natsServerOrSkip } from './nats-for-tests.ts';

const bin = natsServerOrSkip('the operator tests');
if (bin) {
  const nats = natsServerForFile(bin);
  const post = postCheck;

  /** Worker `w` (running `reportingCheck`) and front `f` on `prefix`, and a NATS connection; closed with the test, once the front sees the worker. */
  async function workerAndFront(t: Test, prefix: string, ran: Ran, cluster: Record<string, unknown> = {}) {
    const w = await clusterApp(nats.url, 'w', 'worker', { prefix, check: reportingCheck('w', ran) });
    const front = await clusterApp(nats.url, 'f', 'front', { prefix, cluster });
    const nc = await connect({ servers: nats.url });
    t.teardown(async () => {
      await nc.close();
      await front.close();
      await w.close();
    });
    await until(() => workersSeen(front) === 1, 10_000, 'the worker');
    return { w, front, nc };
  }
  const [envA] = testEnvironments;
  const envB = { ...envA!, name: 'lean-b', imports: '' };
  const envC = { ...envA!, name: 'lean-c', imports: '' };
  const allAvailable: Probe = () => ({ available: true });

  t.test('mixed-environment workers: each job runs where its environment does, or is refused at once', async (t) => {
    const prefix = 'mixed';
    const ranA = newRan(),
      ranB = newRan();
    // Lean-needing stand-ins (routing as for real Lean jobs), each worker configured for one environment.
    const wa = await clusterApp(nats.url, 'wa', 'worker', {
      prefix,
      environments: [envA!],
      probe: allAvailable,
      check: reportingCheck('wa', ranA, 50, undefined, true),
    });
    const wb = await clusterApp(nats.url, 'wb', 'worker', {
      prefix,
      environments: [envB],
      probe: allAvailable,
      check: reportingCheck('wb', ranB, 50, undefined, true),
    });
    const front = await clusterApp(nats.url, 'f', 'front', {
      prefix,
      environments: [envA!, envB, envC],
      probe: () => ({ available: false, reason: 'no Lean on the front (test)' }),
      check: reportingCheck('front', newRan(), 0, undefined, true),
    });
    t.teardown(async () => {
      await front.close();
      await wa.close();
      await wb.close();
    });
    await until(() => workersSeen(front) === 2, 10_000, 'two workers');
    const envs = [TEST_ENV, 'lean-b', TEST_ENV, 'lean-b', TEST_ENV, 'lean-b', TEST_ENV, 'lean-b'];
    const rs = await Promise.all(envs.map((e, i) => front.inject(post(`theorem m${i} : True := trivial\n`, e))));
    t.same(
      rs.map((r) => r.statusCode),
      envs.map(() => 200),
      'every request answered',
    );
    t.same(
      rs.map((r) => r.json().tool_messages.infos[0]),
      envs.map((e) => (e === TEST_ENV ? 'wa' : 'wb')),
      'each by the worker configured for its environment',
    );
    const refused = await front.inject(post('theorem nowhere : True := trivial\n', 'lean-c'));
    t.equal(refused.statusCode, 409, 'an environment no live worker can run is refused');
    t.match(refused.json().error.message, /no worker in the cluster can run Lean for environment lean-c/);
  });

  t.test('a claim left by a dead front: a waiter takes the key over instead of waiting its deadline', async (t) => {
    const prefix = 'orphan';
    const ran = newRan();
    const { front, nc } = await workerAndFront(t, prefix, ran, { publishTimeoutMs: 500 });
    const kv = await new Kvm(nc).open(`${prefix}_inflight`);
    const claimFor = (content: string) =>
      new ResultCache(0).key('check', TEST_ENV, parseToolRequest('check', { content, environment: TEST_ENV }));
    const now = Date.now();
    // A front that claimed and died before queueing (never queued), and one whose claim is past its expiry.
    const cases = [
      { content: 'theorem ghost1 : True := trivial\n', claim: { at: now, expiresAt: now + 3_600_000, queued: false } },
      { content: 'theorem ghost2 : True := trivial\n', claim: { at: now - 60_000, expiresAt: now - 1, queued: true } },
    ];
    for (const c of cases)
      await kv.create(claimFor(c.content), JSON.stringify({ job: 'dead', front: 'ghost', ...c.claim }));
    const rs = await Promise.all(cases.map((c) => front.inject(post(c.content, TEST_ENV, { timeout_seconds: 60 }))));
    t.same(
      rs.map((r) => r.statusCode),
      [200, 200],
    );
    t.equal(ran.count, 2, 'computed by the worker once the dead claims were removed');
    const status = (await front.inject({ method: 'GET', url: '/v1/status' })).json();
    t.equal(status.cluster.submitted.joined, 2, 'both first joined the dead claim');
    t.equal(status.cluster.submitted.claims_held, 0, 'and hold no claim after answering');
  });

  t.test('a job larger than NATS max_payload: a permanent 413 naming the limit, not a retryable 503', async (t) => {
    const prefix = 'large';
    const { front } = await workerAndFront(t, prefix, newRan());
    // 1.2 MB: under the daemon's 16 MiB body limit, over nats-server's default max_payload of 1 MB.
    const big = `-- ${'x'.repeat(1_200_000)}\ntheorem big : True := trivial\n`;
    const r = await front.inject(post(big));
    t.equal(r.statusCode, 413);
    t.notOk(r.headers['retry-after'], 'no Retry-After: retrying cannot help');
    t.match(r.json().error.message, /exceeds the NATS server's max_payload of 1048576 bytes/);
    t.equal((await front.inject(post('theorem small : True := trivial\n'))).statusCode, 200, 'small ones still run');
    t.equal(front.cluster!.status().max_payload, 1048576, '/v1/status shows the limit');
  });

  t.test('malformed messages from NATS are dropped at the boundary, counted, and break nothing', async (t) => {
    const prefix = 'junk';
    const { w, front, nc } = await workerAndFront(t, prefix, newRan());
    nc.publish(`${prefix}.members.evil`, 'not json');
    nc.publish(`${prefix}.members.evil`, JSON.stringify({ node: 'evil', slots: -1 }));
    // A job that is no job, straight into the stream where the worker pulls.
    const js = jetstream(nc);
    await js.publish(`${prefix}.work.${TEST_ENV}.plain`, JSON.stringify({ id: 'x', tool: 'check' }));
    nc.publish(`${prefix}.kick`, `${prefix}.work.${TEST_ENV}.plain`);
    const metric = (body: string, kind: string) =>
      Number(new RegExp(`lean_tool_cluster_dropped_messages_total\\{kind="${kind}"\\} (\\d+)`).exec(body)?.[1] ?? 0);
    await until(
      async () => metric((await front.inject({ method: 'GET', url: '/metrics' })).body, 'heartbeat') === 2,
      5000,
      'two bad heartbeats counted on the front',
    );
    await until(
      async () => metric((await w.inject({ method: 'GET', url: '/metrics' })).body, 'job') === 1,
      5000,
      'the bad job counted on the worker',
    );
    t.equal(workersSeen(front), 1, 'no phantom worker');
    t.equal((await front.inject(post('theorem after : True := trivial\n'))).statusCode, 200, 'work goes on');
  });
}
