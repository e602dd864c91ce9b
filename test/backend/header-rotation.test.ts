/**
 * Headers rotating over an environment at its process cap, with the environment's own pool kept
 * warm (minWarm = perEnv cap = 2). Every start and exit is held by the test and released only when
 * it says so, so the order of events is the test's and nothing depends on timing: a request is
 * asserted to be served once the starts and exits it may need have happened, with no other
 * request releasing a session for it.
 */
import t, { type Test } from 'tap';
import { PoolAgent } from '../../src/backend/pool/agent.ts';
import { Pool, type Poolable, type PoolPolicy, type Usage } from '../../src/backend/pool/pool.ts';
import { silent } from './fake.ts';

let nextId = 1;
class Res implements Poolable {
  readonly id = nextId++;
  healthy = true;
  uses = 0;
  states = 0;
  constructor(readonly header: string) {}
  usage(): Usage {
    return { rssBytes: 0, cpuSeconds: 0 };
  }
  close(): Promise<void> {
    this.healthy = false;
    return Promise.resolve();
  }
  destroy(): Promise<void> {
    return this.close();
  }
}

const lastIdle: PoolPolicy<Res, string> = { choose: (idle) => idle.length - 1, retire: () => undefined };

/** An agent whose pools' starts wait for the test (`starts`), and a way to run every pending event to its end. */
function lab(t: Test) {
  const agent = new PoolAgent<Res, string>({ perEnv: 2, total: 4 });
  t.teardown(() => agent.destroy());
  const starts: { header: string; ready: () => void }[] = [];
  /** The header of every start, and of every cancelled one, in order. */
  const started: string[] = [];
  const cancelled: string[] = [];
  const pool = (header: string, own = false) =>
    agent.pool(
      'env',
      header,
      (gate) =>
        new Pool<Res, string>({
          name: header,
          minWarm: own ? 2 : 0,
          maxSize: 2,
          idleMs: 0,
          log: silent,
          gate,
          policy: lastIdle,
          spawn: (signal) =>
            new Promise<Res>((resolve, reject) => {
              started.push(header);
              const start = { header, ready: () => resolve(new Res(header)) };
              starts.push(start);
              // A cancelled start's process is gone at once here.
              signal.addEventListener('abort', () => {
                starts.splice(starts.indexOf(start), 1);
                cancelled.push(header);
                reject(signal.reason as Error);
              });
            }),
        }),
      own,
    );
  /** Let every queued callback run (exits resolve at once). */
  const flush = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  /** Flush, then finish every start, until nothing is left. */
  const settle = async () => {
    for (;;) {
      await flush();
      if (starts.length === 0) return;
      for (const s of starts.splice(0)) s.ready();
    }
  };
  const own = pool('own', true);
  return { agent, pool, own, starts, started, cancelled, flush, settle };
}

/** `acquire` with whether it was served yet. */
function ask(pool: Pool<Res, string>, header: string) {
  const req = { served: undefined as Res | undefined, failed: undefined as unknown };
  const p = pool.acquire(header).then(
    (r) => (req.served = r),
    (e: unknown) => (req.failed = e),
  );
  return { req, p };
}

t.test(
  'a new header at a full environment is served by evicting an idle session, never waiting for the warm refill',
  async (t) => {
    const { agent, pool, started, settle, own } = lab(t);
    await settle();
    t.equal(own.stats().warm, 2, 'the own header warm');
    // The environment's sessions serve other work first.
    const held = [await own.acquire('own'), await own.acquire('own')];
    for (const r of held) own.release(r);
    for (let round = 0; round < 6; round++) {
      const header = `import Mathlib\nimport Extra${round}`;
      const p = pool(header);
      const before = started.length;
      const { req } = ask(p, header);
      await settle();
      t.same(started.slice(before), [header], `round ${round}: the one start is its own, no warm refill took its slot`);
      t.ok(req.served, `round ${round}: served once the starts and exits it needs are done`);
      t.equal(req.served?.header, header, `round ${round}: by a session of its own header`);
      t.ok(agent.processes('env') <= 2, `round ${round}: within the cap (${agent.processes('env')})`);
      if (req.served) p.release(req.served);
      await settle();
    }
  },
);

t.test('a new header while the own header is still warming: a warm start gives its slot up', async (t) => {
  const { pool, starts, started, cancelled, flush, own } = lab(t);
  t.equal(starts.length, 2, 'the own header warming to the cap');
  const header = 'import Extra';
  const { req } = ask(pool(header), header);
  await flush();
  t.same(cancelled, ['own'], 'nothing idle to evict: one warm start is cancelled');
  t.same(started, ['own', 'own', header], 'and its slot goes to the waiting header');
  starts
    .splice(
      starts.findIndex((s) => s.header === header),
      1,
    )[0]!
    .ready();
  await flush();
  t.equal(req.served?.header, header, 'served by its own start, with no own-header session ever ready');
  t.same(
    starts.map((s) => s.header),
    ['own'],
    'the other warm start still under way',
  );
  t.equal(own.stats().failedStarts, 0, 'a cancelled start is no failure (no backoff)');
  // Once that header's session is gone, the own header warms back to minWarm in the freed slot.
  starts.splice(0)[0]!.ready();
  pool(header).destroy(req.served!);
  await flush();
  t.same(started.slice(3), ['own'], 'the own header starts again in the freed slot');
});

t.test('rotation with concurrent requests, one own-header request held busy throughout', async (t) => {
  const { agent, pool, settle, own } = lab(t);
  await settle();
  const busy = await own.acquire('own');
  for (let round = 0; round < 4; round++) {
    const header = `import Extra${round}`;
    const p = pool(header);
    const a = ask(p, header);
    const b = ask(p, header);
    await settle();
    // One slot is busy with the own header: one session of this header serves both, in turn.
    const first = a.req.served ?? b.req.served;
    t.ok(first, `round ${round}: one served at once`);
    t.ok(!(a.req.served && b.req.served), `round ${round}: the other waits for it (the cap)`);
    p.release(first!);
    await settle();
    t.ok(a.req.served && b.req.served, `round ${round}: the second served by the same session`);
    t.equal(a.req.served?.id, b.req.served?.id);
    p.release(first!);
    t.ok(agent.processes('env') <= 2, `round ${round}: within the cap`);
  }
  own.release(busy);
});

t.test(
  "another header's request is not starved by the own header's steady queue: first come, first served",
  async (t) => {
    const { agent, pool, started, settle, own } = lab(t);
    await settle();
    const [a, b] = [await own.acquire('own'), await own.acquire('own')];
    // Both sessions busy; the own header's queue is never empty: one request before the other header's, two after.
    const before = ask(own, 'own');
    const header = 'import Extra';
    const other = ask(pool(header), header);
    const after = [ask(own, 'own'), ask(own, 'own')];
    await settle();
    own.release(a);
    await settle();
    t.equal(before.req.served?.id, a.id, 'the request that came first gets the first session released');
    const starts = started.length;
    own.release(b);
    await settle();
    t.equal(other.req.served?.header, header, 'the other header is served next, in its own session');
    t.same(started.slice(starts), [header], 'the second session released gave its slot up for that start');
    t.notOk(after[0]!.req.served ?? after[1]!.req.served, 'the own requests that came later still wait');
    t.ok(agent.processes('env') <= 2, 'within the cap');
    pool(header).release(other.req.served!);
    own.release(before.req.served!);
    await settle();
    t.ok(after[0]!.req.served, 'then the own queue goes on');
  },
);

t.test(
  "a second request of another header waits for that header's process: one start, one own session evicted",
  async (t) => {
    const { pool, started, settle, own } = lab(t);
    await settle();
    const header = 'import Extra';
    const p = pool(header);
    const before = started.length;
    const a = ask(p, header);
    const b = ask(p, header);
    await settle();
    // A second start would serve one request, then cost the own header an import to take its slot back.
    t.same(started.slice(before), [header], 'one start for the two');
    t.equal(own.size, 1, 'one own session kept');
    const first = a.req.served ?? b.req.served;
    t.ok(first && !(a.req.served && b.req.served), 'one served, the other waits for it');
    p.release(first!);
    await settle();
    t.equal((a.req.served ?? first)!.id, (b.req.served ?? first)!.id, 'the second served by the same session');
    t.same(started.slice(before), [header], 'still one start');
  },
);

t.test("another header's idle process is evicted before an own one that idled longer", async (t) => {
  const { pool, started, settle, own } = lab(t);
  await settle();
  const held = await own.acquire('own');
  const x = pool('import X');
  const first = ask(x, 'import X');
  await settle();
  t.equal(first.req.served?.header, 'import X', 'the first other header served in the idle own slot');
  // The own session goes idle first: it is the least recently used.
  own.release(held);
  x.release(first.req.served!);
  await settle();
  const before = started.length;
  const y = ask(pool('import Y'), 'import Y');
  await settle();
  t.equal(y.req.served?.header, 'import Y', 'the next header served');
  t.same(started.slice(before), ['import Y'], 'by one start');
  t.equal(x.size, 0, "the other header's idle process gave its slot");
  t.equal(own.size, 1, 'the own session kept (no import to bring it back)');
});

t.test("a waiting request of a header that has a process does not make the own header's release yield", async (t) => {
  const { pool, started, settle, own } = lab(t);
  await settle();
  const held = await own.acquire('own');
  const x = pool('import X');
  const x1 = ask(x, 'import X');
  await settle();
  t.ok(x1.req.served, 'the other header holds the second slot, busy');
  const x2 = ask(x, 'import X');
  const w = ask(own, 'own');
  await settle();
  const before = started.length;
  own.release(held);
  await settle();
  t.equal(w.req.served?.id, held.id, 'the own request is served by the released own session');
  t.same(started.slice(before), [], 'no second process started for the other header');
  x.release(x1.req.served!);
  await settle();
  t.equal(x2.req.served?.id, x1.req.served?.id, 'its second request served by its own session');
});

t.test("a stream of another header's requests grows past one process, as the own header's would", async (t) => {
  const { pool, started, settle, own } = lab(t);
  await settle();
  const header = 'import Dataset';
  const p = pool(header);
  const before = started.length;
  // A burst waits for its header's one process; more than two requests waiting per process are a stream.
  const asked = [ask(p, header), ask(p, header)];
  await settle();
  t.same(started.slice(before), [header], 'a burst of two: one start');
  asked.push(ask(p, header), ask(p, header));
  await settle();
  t.same(started.slice(before), [header, header], 'four waiting on one process: a second start');
  t.equal(own.size, 0, "the own header's idle sessions gave their slots (the cap is 2)");
  t.equal(asked.filter((a) => a.req.served).length, 2, 'two served at once, by the two processes');
});
