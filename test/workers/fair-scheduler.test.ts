/**
 * Issue 23, item 5: worker threads are shared fairly between callers. Deterministic: the
 * scheduler alone (which caller's task starts when), then end to end by order, not by time
 * (a loaded machine cannot flake it): a caller's trivial structural request, sent once another
 * caller's heavy ones hold every regular thread, is answered before them; a heavy task's CPU
 * ends at its deadline. The ≤ 100 ms wait itself is measured by the adversarial bench.
 */
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { FairScheduler } from '../../src/workers/fair-scheduler.ts';
import { makeApp, TEST_ENV, testConfig } from '../helpers.ts';

/** Acquires for `caller` and records the order of starts. */
function recorder(s: FairScheduler) {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (caller: string, tag: string, signal?: AbortSignal) =>
    s.acquire(caller, signal).then((release) => {
      started.push(tag);
      releases.set(tag, release);
    });
  const flush = () => new Promise((r) => setImmediate(r));
  return { started, releases, ask, flush };
}

t.test('a caller with nothing running starts at once on a reserve thread', async (t) => {
  const s = new FairScheduler(2, 1);
  const { started, releases, ask, flush } = recorder(s);
  void ask('A', 'a1');
  void ask('A', 'a2');
  void ask('A', 'a3');
  await flush();
  t.same(started, ['a1', 'a2'], "A's third task waits");
  void ask('B', 'b1');
  await flush();
  t.same(started, ['a1', 'a2', 'b1'], 'B starts at once although A holds both regular threads');
  void ask('C', 'c1');
  await flush();
  t.equal(started.length, 3, 'the reserve is used up: C waits');
  releases.get('a1')!();
  await flush();
  t.same(started.slice(3), ['c1'], 'a freed thread goes to the caller running nothing (C), not to A');
  releases.get('b1')!();
  await flush();
  t.same(started.slice(4), [], 'three running on two regular threads: nothing more starts');
  releases.get('a2')!();
  await flush();
  t.same(started.slice(4), ['a3']);
});

t.test('round robin between callers that have work waiting', async (t) => {
  const s = new FairScheduler(1, 0);
  const { started, releases, ask, flush } = recorder(s);
  void ask('A', 'a1');
  for (const tag of ['a2', 'a3', 'a4']) void ask('A', tag);
  for (const tag of ['b1', 'b2']) void ask('B', tag);
  await flush();
  for (let i = 0; i < 5; i++) {
    releases.get(started.at(-1)!)!();
    await flush();
  }
  t.same(started, ['a1', 'a2', 'b1', 'a3', 'b2', 'a4'], 'turns alternate instead of first come, first served');
});

t.test('a waiter whose signal aborts leaves its queue', async (t) => {
  const s = new FairScheduler(1, 0);
  const { started, releases, ask, flush } = recorder(s);
  void ask('A', 'a1');
  const ctrl = new AbortController();
  const gone = ask('B', 'b1', ctrl.signal);
  ctrl.abort(new Error('deadline'));
  await t.rejects(gone, /deadline/);
  t.equal(s.queued, 0);
  releases.get('a1')!();
  await flush();
  t.same(started, ['a1'], 'nothing started for the aborted waiter');
  t.equal(s.running, 0);
});

/**
 * The end-to-end tests' daemon, one for the file (closed after its last test): two regular worker threads and
 * the reserve (~1.7 s of CPU to start, each thread loading the sources). The second test only compares the
 * pool's counters before and after, so it needs no fresh one.
 */
let daemon: Promise<FastifyInstance> | undefined;
const twoKeysDaemon = () =>
  (daemon ??= makeApp({
    config: testConfig({
      keys: [
        { key: 'key-a-123456', name: 'a' },
        { key: 'key-b-123456', name: 'b' },
      ],
      workers: { threads: 2 },
    }),
    // The reserve thread is what lets B start at once (test/helpers.ts starts daemons without it).
    workerReserve: 1,
  }).then((app) => {
    t.teardown(() => app.close());
    return app;
  }));

t.test(
  "end to end: key B's trivial request is served while key A's heavy ones hold every regular thread",
  async (t) => {
    const app = await twoKeysDaemon();
    t.equal(await app.warmWorkers(), true, 'the worker threads start');
    const answered: string[] = [];
    const post = (key: string, tag: string, content: string, timeout_seconds = 300) =>
      app
        .inject({
          method: 'POST',
          url: '/api/v1/theorem2sorry',
          headers: { authorization: `Bearer ${key}` },
          payload: { content, environment: TEST_ENV, reparse: false, timeout_seconds },
        })
        .then((res) => {
          answered.push(tag);
          return res;
        });
    const workers = async () => (await app.inject({ method: 'GET', url: '/v1/status' })).json().workers;
    // Every thread has loaded the sources before the heavy requests go out: Piscina counts its first threads
    // ready at once, so a task handed to one still loading waits for it (B once did, at load 14, and was answered
    // after A's). Three tasks at once go to three different threads (one task per thread), each long enough
    // (~50 ms) for the three to be handed out together; all three answered, all three threads have loaded.
    const warm = await Promise.all(
      ['key-a-123456', 'key-a-123456', 'key-b-123456'].map((key, i) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/theorem2sorry',
          headers: { authorization: `Bearer ${key}` },
          payload: { content: `namespace w${i}\n`.repeat(10_000), environment: TEST_ENV, reparse: false },
        }),
      ),
    );
    if (warm.some((r) => r.statusCode !== 200)) throw new Error(`warm-up: ${warm.map((r) => r.statusCode).join()}`);
    const heavy = 'namespace a\n'.repeat(60_000);
    const a1 = post('key-a-123456', 'a1', heavy);
    const a2 = post('key-a-123456', 'a2', `${heavy}\n`);
    // Deterministic, not timed: B is sent once both heavy tasks are running on the regular threads.
    while ((await workers()).running < 2) await new Promise((r) => setTimeout(r, 10));
    t.same(answered, [], 'both heavy requests are still running');
    const b = await post('key-b-123456', 'b', 'theorem t : True := trivial\n');
    t.equal(b.statusCode, 200);
    t.same(answered, ['b'], "B is answered before either of A's heavy requests: it did not wait for a thread");
    const [r1, r2] = await Promise.all([a1, a2]);
    t.equal(r1.statusCode, 200);
    t.equal(r2.statusCode, 200);
  },
);

t.test("a heavy task's CPU is bounded by its deadline: its thread is stopped and the next caller served", async (t) => {
  const app = await twoKeysDaemon();
  t.equal(await app.warmWorkers(), true);
  const before = (await app.inject({ method: 'GET', url: '/v1/status' })).json().workers.terminated;
  const heavy = await app.inject({
    method: 'POST',
    url: '/api/v1/theorem2sorry',
    headers: { authorization: 'Bearer key-a-123456' },
    // Not the previous test's heavy content (its answer is cached), and ~8× the deadline's worth of work on a quiet
    // machine (60,000 commands were ~2×: a faster machine could finish them in time); the thread stops at 0.2 s.
    payload: { content: 'namespace c\n'.repeat(400_000), environment: TEST_ENV, reparse: false, timeout_seconds: 0.2 },
  });
  t.equal(heavy.statusCode, 504);
  const after = (await app.inject({ method: 'GET', url: '/v1/status' })).json().workers.terminated;
  t.equal(after, before + 1, 'the task was stopped at its deadline, not left to run');
  const next = await app.inject({
    method: 'POST',
    url: '/api/v1/theorem2sorry',
    headers: { authorization: 'Bearer key-b-123456' },
    payload: { content: 'theorem t2 : True := trivial\n', environment: TEST_ENV, reparse: false },
  });
  t.equal(next.statusCode, 200);
});
