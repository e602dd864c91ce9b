/**
 * A worker's answer path: the slot of a finished job takes the next job while the finished
 * one's outcome, shared-cache entry and claim are still travelling, and the outcome does not
 * wait for the cache entry. Each is shown by holding one of the worker's own JetStream calls
 * open (a gate) and looking at what happens meanwhile: an order, not a duration.
 * A busy worker fetches the next queued job ahead (when no other worker is idle) and starts it
 * as its slot frees; it hands it back when closing, and a crash leaves it to be redelivered.
 * Shown by jobs that run until let go.
 * Skips, saying why, when nats-server is not installed.
 */
import t, { type Test } from 'tap';
import type { ClusterConnection } from '../../src/cluster/connection.ts';
import type { ToolImpl } from '../../src/tools/types.ts';
import { clusterApp, newRan, nodeAnswer, postCheck, reportingCheck, until, workersSeen } from './fixtures.ts';
import { natsServerForFile, natsServerOrSkip } from './nats-for-tests.ts';
import type { FastifyInstance } from 'fastify';

const bin = natsServerOrSkip('the worker answer-path tests');

/** The worker's connection (the node's own field: the test reaches the KV handles the worker uses). */
const connectionOf = (app: FastifyInstance) => (app.cluster as unknown as { c: ClusterConnection }).c;

/** Replaces `obj[name]` by a version whose calls wait until `open()`; counts the calls held. */
function gate<O extends object>(obj: O, name: keyof O) {
  const original = obj[name] as (...a: unknown[]) => Promise<unknown>;
  let release!: () => void;
  const opened = new Promise<void>((r) => (release = r));
  const state = { held: 0, open: release };
  (obj as Record<keyof O, unknown>)[name] = async (...a: unknown[]) => {
    state.held++;
    await opened;
    return original.apply(obj, a);
  };
  return state;
}

/** A `check` double that runs until let go (`jobs[i].go()`), recording which node started which content, in order. */
function heldCheck(node: string, jobs: { node: string; content: string; go: () => void }[]): ToolImpl<'check'> {
  return {
    needsLean: () => false,
    async run(req) {
      await new Promise<void>((go) => jobs.push({ node, content: req.content, go }));
      return nodeAnswer(node, req.content);
    },
  };
}

/** Deliveries of the work stream: queued (not yet delivered) and delivered but unacknowledged, over its consumers. */
async function deliveries(c: ClusterConnection): Promise<{ queued: number; unacked: number }> {
  let queued = 0,
    unacked = 0;
  for await (const i of c.jsm.consumers.list(c.names.stream)) {
    queued += i.num_pending;
    unacked += i.num_ack_pending;
  }
  return { queued, unacked };
}

/** Pull requests waiting at the server over the work stream's consumers. */
async function waitingPulls(c: ClusterConnection): Promise<number> {
  let n = 0;
  for await (const i of c.jsm.consumers.list(c.names.stream)) n += i.num_waiting;
  return n;
}

if (bin) {
  const nats = natsServerForFile(bin);

  async function oneWorker(t: Test, prefix: string, ms: number) {
    const ran = newRan();
    const starts: string[] = [];
    const worker = await clusterApp(nats.url, `${prefix}w`, 'worker', {
      prefix,
      check: reportingCheck(`${prefix}w`, ran, ms, () => starts.push(`start ${starts.length}`)),
      cluster: { missedHeartbeats: 10 },
    });
    const front = await clusterApp(nats.url, `${prefix}f`, 'front', {
      prefix,
      probe: () => ({ available: false, reason: 'no Lean on the front (test)' }),
      cluster: { missedHeartbeats: 10 },
    });
    // Gates left shut by a failing assertion open first: closing waits for the jobs they hold.
    const gates: { open: () => void }[] = [];
    t.teardown(async () => {
      for (const g of gates) g.open();
      await front.close();
      await worker.close();
    });
    await until(() => workersSeen(front) === 1, 10_000, 'the worker in membership');
    return { worker, front, ran, starts, gates };
  }

  t.test('a one-slot worker starts its next job while the last one still frees its claim', async (t) => {
    const { worker, front, ran, starts, gates } = await oneWorker(t, 'slotfree', 50);
    // The worker's claim release looks the claim up first (claims.ts jobOf): hold that lookup.
    const held = gate(connectionOf(worker).inflight, 'get');
    gates.push(held);
    const first = front.inject(postCheck('theorem first : True := trivial\n'));
    await until(() => held.held === 1, 10_000, "the first job's claim release to start");
    t.equal((await first).statusCode, 200, 'the first job was answered before its claim was freed');
    const second = front.inject(postCheck('theorem second : True := trivial\n'));
    // Before, the slot stayed taken until the claim was freed: the second job never started here.
    await until(() => starts.length === 2, 5_000, 'the second job to start on the one slot');
    t.equal((await second).statusCode, 200, 'and it was answered while the first claim lookup was still held');
    held.open();
    t.equal(ran.count, 2);
  });

  t.test("a job's outcome travels without waiting for its shared-cache entry; the ack waits for it", async (t) => {
    const { worker, front, gates } = await oneWorker(t, 'cachewait', 0);
    const c = connectionOf(worker);
    const held = gate(c.cache, 'put');
    gates.push(held);
    let status = 0;
    const answered = front.inject(postCheck('theorem cached : True := trivial\n')).then((r) => (status = r.statusCode));
    await until(() => status !== 0, 5_000, 'the answer while the cache put is held');
    // Before, the outcome was sent only once the put had returned: the front had no answer while it was held.
    t.equal(status, 200, 'answered while the cache put was held');
    t.equal(held.held, 1, 'the result is being stored in the shared cache');
    // Unacknowledged deliveries over the work stream's consumers (the job's queue is the front's choice).
    const unacked = async () => {
      let n = 0;
      for await (const i of c.jsm.consumers.list(c.names.stream)) n += i.num_ack_pending;
      return n;
    };
    t.equal(await unacked(), 1, 'not acknowledged before the cache entry is in');
    held.open();
    await until(async () => (await unacked()) === 0, 10_000, 'the acknowledgement after the put');
    t.pass('acknowledged once the put returned');
    await answered;
  });

  /** Worker daemons running `heldCheck` (one slot each) and a front, all torn down with every held job let go. */
  async function heldCluster(t: Test, prefix: string, workers: string[]) {
    const jobs: { node: string; content: string; go: () => void }[] = [];
    const opts = (id: string) => ({ prefix, check: heldCheck(id, jobs), cluster: { missedHeartbeats: 10 } });
    const ws = new Map<string, FastifyInstance>();
    for (const id of workers) ws.set(id, await clusterApp(nats.url, id, 'worker', opts(id)));
    const front = await clusterApp(nats.url, `${prefix}f`, 'front', {
      prefix,
      probe: () => ({ available: false, reason: 'no Lean on the front (test)' }),
      cluster: { missedHeartbeats: 10 },
    });
    t.teardown(async () => {
      const letGo = setInterval(() => jobs.forEach((j) => j.go()), 20);
      await front.close();
      for (const w of ws.values()) await w.close();
      clearInterval(letGo);
    });
    await until(() => workersSeen(front) === workers.length, 10_000, 'the workers in membership');
    return { jobs, ws, front, c: connectionOf(front) };
  }

  t.test('a busy one-slot worker holds the next queued job and starts it the moment its slot frees', async (t) => {
    const { jobs, front, c } = await heldCluster(t, 'ahead', ['aheadw']);
    const first = front.inject(postCheck('theorem first : True := trivial\n'));
    await until(() => jobs.length === 1, 10_000, 'the first job to start');
    const second = front.inject(postCheck('theorem second : True := trivial\n'));
    // Before, the second job stayed queued until the slot freed (1 queued, 1 unacknowledged).
    await until(async () => (await deliveries(c)).unacked === 2, 10_000, 'the second job fetched ahead');
    t.same(await deliveries(c), { queued: 0, unacked: 2 }, 'held by the worker, not queued');
    t.equal(jobs.length, 1, 'but not started: the one slot is busy');
    jobs[0]!.go();
    await until(() => jobs.length === 2, 10_000, 'the held job to start once the slot is free');
    jobs[1]!.go();
    t.same([(await first).statusCode, (await second).statusCode], [200, 200]);
    t.same(
      jobs.map((j) => j.content),
      ['theorem first : True := trivial\n', 'theorem second : True := trivial\n'],
    );
  });

  t.test('no job is fetched ahead by a busy worker while another worker is idle', async (t) => {
    const { jobs, ws, front, c } = await heldCluster(t, 'idleb', ['idlebw1', 'idlebw2']);
    const first = front.inject(postCheck('theorem first : True := trivial\n'));
    await until(() => jobs.length === 1, 10_000, 'the first job to start');
    const busy = ws.get(jobs[0]!.node)!;
    const idle = jobs[0]!.node === 'idlebw1' ? 'idlebw2' : 'idlebw1';
    // The other worker has looked for work, found none and said so, and its pull for the first job has expired.
    const seenIdle = () => busy.cluster!.members.live().find((m) => m.node === idle)?.idle === true;
    await until(async () => seenIdle() && (await waitingPulls(c)) === 0, 10_000, 'the other worker idle, not pulling');
    // The idle worker's pulls reach the server late: a busy worker fetching ahead would get the job first.
    const nc = connectionOf(ws.get(idle)!).nc;
    const publish = nc.publish.bind(nc);
    nc.publish = (subject, ...rest) => {
      if (subject.startsWith('$JS.API.CONSUMER.MSG.NEXT.')) setTimeout(() => publish(subject, ...rest), 300);
      else publish(subject, ...rest);
    };
    const second = front.inject(postCheck('theorem second : True := trivial\n'));
    // Held by the busy worker, it would not start before the first job is let go.
    await until(() => jobs.length === 2, 10_000, 'the second job to start on the idle worker');
    t.not(jobs[1]!.node, jobs[0]!.node, 'on the other worker');
    jobs.forEach((j) => j.go());
    t.same([(await first).statusCode, (await second).statusCode], [200, 200]);
  });

  t.test('a closing worker hands its held job back: another worker runs it', async (t) => {
    const { jobs, ws, front, c } = await heldCluster(t, 'handback', ['handbackw1']);
    const first = front.inject(postCheck('theorem first : True := trivial\n'));
    await until(() => jobs.length === 1, 10_000, 'the first job to start');
    const second = front.inject(postCheck('theorem second : True := trivial\n'));
    await until(async () => (await deliveries(c)).unacked === 2, 10_000, 'the second job fetched ahead');
    const other = await clusterApp(nats.url, 'handbackw2', 'worker', {
      prefix: 'handback',
      check: heldCheck('handbackw2', jobs),
      cluster: { missedHeartbeats: 10 },
    });
    ws.set('handbackw2', other);
    // Closing waits for the running job; the held one goes back to the queue at once.
    const closed = ws.get('handbackw1')!.close();
    await until(() => jobs.length === 2, 10_000, 'the handed-back job to start on the other worker');
    t.equal(jobs[1]!.node, 'handbackw2');
    jobs.forEach((j) => j.go());
    await closed;
    t.same([(await first).statusCode, (await second).statusCode], [200, 200]);
    t.equal((await second).json().tool_messages.infos[0], 'handbackw2', 'answered by the worker that ran it');
  });

  t.test(
    'a worker killed while it holds a job: the held job is redelivered to another worker and answered',
    async (t) => {
      const { jobs, ws, front, c } = await heldCluster(t, 'killheld', ['killheldw1']);
      const first = front.inject(postCheck('theorem first : True := trivial\n'));
      await until(() => jobs.length === 1, 10_000, 'the first job to start');
      const second = front.inject(postCheck('theorem second : True := trivial\n'));
      await until(async () => (await deliveries(c)).unacked === 2, 10_000, 'the second job fetched ahead');
      const other = await clusterApp(nats.url, 'killheldw2', 'worker', {
        prefix: 'killheld',
        check: heldCheck('killheldw2', jobs),
        cluster: { missedHeartbeats: 10 },
      });
      ws.set('killheldw2', other);
      // Like a crash: nothing handed back; both deliveries come back after ack_wait, to the other worker.
      await ws.get('killheldw1')!.cluster!.kill();
      const onOther = () => jobs.filter((j) => j.node === 'killheldw2').length;
      // One slot there: the first redelivered job runs, then the other.
      await until(() => onOther() === 1, 20_000, 'a redelivered job to start on the other worker');
      jobs.forEach((j) => j.go());
      await until(() => onOther() === 2, 20_000, 'the other redelivered job to start there');
      jobs.forEach((j) => j.go());
      t.same([(await first).statusCode, (await second).statusCode], [200, 200]);
      t.same(
        [(await first).json().tool_messages.infos[0], (await second).json().tool_messages.infos[0]],
        ['killheldw2', 'killheldw2'],
        'answered by the surviving worker',
      );
    },
  );
}
