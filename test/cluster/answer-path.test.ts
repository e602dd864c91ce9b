/**
 * A worker's answer path: the slot of a finished job takes the next job while the finished
 * one's outcome, shared-cache entry and claim are still travelling, and the outcome does not
 * wait for the cache entry. Each is shown by holding one of the worker's own JetStream calls
 * open (a gate) and looking at what happens meanwhile: an order, not a duration.
 * Skips, saying why, when nats-server is not installed.
 */
import t, { type Test } from 'tap';
import type { ClusterConnection } from '../../src/cluster/connection.ts';
import { clusterApp, newRan, postCheck, reportingCheck, until, workersSeen } from './fixtures.ts';
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
}
