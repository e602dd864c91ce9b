/**
 * Proof search across a cluster (issue 25), against a real nats-server: a front and two
 * workers whose REPL is the recorded REPL (proof_step at v4.28.0). Each message of the search
 * leases a process on the worker of the previous one (every command and tactic goes there, and
 * nothing is held between messages); losing that worker rebuilds the
 * search on the other by replay, and the client is told which states were rebuilt; the search
 * then finishes as recorded. Skips, saying why, when nats-server or the recordings are absent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { ProofSearch } from '../../src/client/proof-search.ts';
import { clusterSettings, until, workersSeen } from '../cluster/fixtures.ts';
import { natsServerPath, NO_NATS_REASON, startNatsServer } from '../cluster/nats-server.ts';
import { listening, recorded, recordedSearchApp, recordingsSkip, refusalsIn, SEARCH_ENV } from './helpers.ts';

const TAG = 'v4.28.0';
const bin = natsServerPath();
const skip = bin ? recordingsSkip(TAG) : NO_NATS_REASON;

/** A front and two workers on the recorded REPL, closed at the end of `t`. */
async function cluster(t: Test) {
  const nats = await startNatsServer(bin!);
  const tmp = mkdtempSync(path.join(tmpdir(), 'search-cluster-'));
  const refusals = path.join(tmp, 'refusals.jsonl');
  const apps: FastifyInstance[] = [];
  t.teardown(async () => {
    for (const a of apps.reverse()) await a.close().catch(() => {});
    await nats.stop();
    rmSync(tmp, { recursive: true, force: true });
  });
  const node = async (id: string, role: 'front' | 'worker') => {
    // A worker is dropped after 3 s without a heartbeat, not 0.6 s: front and workers share this process's event
    // loop, and on a loaded machine a stall of 0.6 s made the live worker look gone too ("no worker is in the
    // cluster now", at load 11). The killed worker is still dropped well within the tests' 10 s waits.
    const cluster = { ...clusterSettings(nats.url, id, role), prefix: 'search', missedHeartbeats: 15 };
    const app = await recordedSearchApp(TAG, refusals, { cluster });
    apps.push(app);
    return app;
  };
  const workers = { w1: await node('w1', 'worker'), w2: await node('w2', 'worker') };
  const front = await node('f1', 'front');
  await until(() => workersSeen(front) === 2, 10_000, 'both workers');
  const { url } = await listening(front);
  return { front, workers, url, refusals };
}

const held = (w: FastifyInstance) => w.cluster!.searchLeases!.size;
const opened = (w: FastifyInstance) => w.cluster!.searchLeases!.opened;

t.test('a search stays on one worker; losing it rebuilds the search on another', { skip }, async (t) => {
  const { front, workers, url, refusals } = await cluster(t);
  const rec = recorded(TAG, 'proof_step');
  await using search = await ProofSearch.connect({ url, environment: SEARCH_ENV });
  const root = (await search.start(String(rec[0]!.request.cmd))).states[0]!;
  const [a, b] = (
    await search.tactic(
      root.state,
      [1, 2].map((i) => String(rec[i]!.request.tactic)),
    )
  ).results;
  if (!a?.ok || !b?.ok) throw new Error('two branches expected');
  t.same(a.goals, rec[1]!.response.goals);
  const pinned = opened(workers.w1) > 0 ? 'w1' : 'w2';
  const other = pinned === 'w1' ? 'w2' : 'w1';
  t.equal(opened(workers[other]), 0, 'every message on one worker');
  await until(() => held(workers[pinned]) === 0, 10_000, 'its lease to be given back after each message');
  t.equal((await search.stat()).processes[0]!.liveStates, 3);
  await search.delete([a.state]);

  // The pinned worker dies (no answers, connection dropped): the front drops it after its missed heartbeats.
  await workers[pinned].cluster!.kill();
  await until(() => workersSeen(front) === 1, 10_000, 'the front to drop the lost worker');
  const fin = await search.tactic(b.state, String(rec[3]!.request.tactic));
  t.same([...fin.rebuilt].sort(), [root.state, b.state].sort(), 'every live state was rebuilt, and named');
  t.same(fin.lost, []);
  const r = fin.results[0]!;
  t.ok(r.ok && r.proofStatus === rec[3]!.response.proofStatus, 'finished as recorded, on the other worker');
  t.equal(r.ok && r.proofStatus, 'Completed');
  t.ok(opened(workers[other]) > 0, 'the search moved to the other worker');
  await until(() => held(workers[other]) === 0, 10_000, 'the lease to be given back');
  await search.dispose();
  t.same(refusalsIn(refusals), [], 'every answer came from a recording');
});

t.test(
  'a worker lost before the front notices: the next step finds it gone and rebuilds at once',
  { skip },
  async (t) => {
    const { workers, url, refusals } = await cluster(t);
    const rec = recorded(TAG, 'proof_step');
    await using search = await ProofSearch.connect({ url, environment: SEARCH_ENV });
    const root = (await search.start(String(rec[0]!.request.cmd))).states[0]!;
    const b = (await search.tactic(root.state, String(rec[2]!.request.tactic))).results[0]!;
    if (!b.ok) throw new Error('a state expected');
    const pinned = opened(workers.w1) > 0 ? 'w1' : 'w2';
    // Killed, and asked at once: its heartbeats are still fresh in the front's membership.
    await workers[pinned].cluster!.kill();
    const first = await search.tactic(b.state, String(rec[3]!.request.tactic));
    t.same([...first.rebuilt].sort(), [root.state, b.state].sort(), 'the states were rebuilt on the other worker');
    // Usually the step itself finds the worker gone (no responder): it answers `crash` and runs again
    // fine. On a slow machine the front may have dropped the worker first: then it simply finishes.
    const r = first.results[0]!;
    t.ok(!r.ok ? r.kind === 'crash' : r.proofStatus === rec[3]!.response.proofStatus, 'crash, or finished');
    const again = r.ok ? r : (await search.tactic(b.state, String(rec[3]!.request.tactic))).results[0]!;
    t.equal(again.ok && again.proofStatus, rec[3]!.response.proofStatus, 'finished as recorded');
    t.same(refusalsIn(refusals), []);
  },
);
