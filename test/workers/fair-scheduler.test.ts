/**
 * Issue 23, item 5: worker threads are shared fairly between callers. Deterministic: the
 * scheduler alone (which caller's task starts when), then end to end: a caller's trivial
 * structural request is not held behind another caller's heavy ones (measured against the
 * heavy work's own duration, not an absolute time, so a loaded machine does not flake it).
 */
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

t.test("end to end: key B is not held behind key A's heavy requests", async (t) => {
  const app = await makeApp({
    config: testConfig({
      keys: [
        { key: 'key-a-123456', name: 'a' },
        { key: 'key-b-123456', name: 'b' },
      ],
      workers: { threads: 2 },
    }),
  });
  t.teardown(() => app.close());
  t.equal(await app.warmWorkers(), true, 'the worker threads start');
  const post = (key: string, content: string) => {
    const t0 = performance.now();
    return app
      .inject({
        method: 'POST',
        url: '/api/v1/theorem2sorry',
        headers: { authorization: `Bearer ${key}` },
        payload: { content, environment: TEST_ENV, reparse: false },
      })
      .then((res) => ({ status: res.statusCode, ms: performance.now() - t0 }));
  };
  const heavy = 'namespace a\n'.repeat(60_000);
  const a1 = post('key-a-123456', heavy);
  const a2 = post('key-a-123456', `${heavy}\n`);
  await new Promise((r) => setTimeout(r, 200));
  const b = await post('key-b-123456', 'theorem t : True := trivial\n');
  const [r1, r2] = await Promise.all([a1, a2]);
  t.equal(b.status, 200);
  t.equal(r1.status, 200);
  const heavyMs = Math.min(r1.ms, r2.ms);
  t.ok(
    b.ms < heavyMs / 3,
    `B answered in ${Math.round(b.ms)} ms while A's heavy requests took ${Math.round(heavyMs)} ms`,
  );
});
