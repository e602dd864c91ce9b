/** The generic pool over a plain Poolable double: waiters, policy, soft retirement, lifecycle, idle eviction, backoff. */
import { mock } from 'node:test';
import t from 'tap';
import { PoolAgent } from '../../src/backend/pool/agent.ts';
import { Pool, type Poolable, type PoolPolicy, type Usage } from '../../src/backend/pool/pool.ts';
import { silent, waitFor } from './fake.ts';

let nextId = 1;
class Res implements Poolable {
  readonly id = nextId++;
  healthy = true;
  uses = 0;
  states = 0;
  rssBytes = 0;
  closedBy: string | undefined;
  killedBy: string | undefined;
  busy = false;
  /** The bound of each usage() call (undefined: a fresh reading was asked for). */
  bounds: (number | undefined)[] = [];
  usage(rssBound?: number): Usage {
    this.bounds.push(rssBound);
    return { rssBytes: this.rssBytes, cpuSeconds: 0 };
  }
  async close(reason: string): Promise<void> {
    if (this.busy) throw new Error(`closed while busy (${reason})`);
    this.closedBy = reason;
    this.healthy = false;
    await new Promise((r) => setTimeout(r, 1));
  }
  async destroy(reason: string): Promise<void> {
    this.killedBy = reason;
    this.healthy = false;
    await new Promise((r) => setTimeout(r, 1));
  }
}

const byRss = (limit: number): PoolPolicy<Res, number> => ({
  // The request is the id it would like (affinity); otherwise the last (warmest).
  choose: (idle, want) => {
    const i = idle.findIndex((r) => r.id === want);
    return i >= 0 ? i : idle.length - 1;
  },
  retire: (_r, u) => (u.rssBytes > limit ? 'memory' : undefined),
  rssBound: limit,
});

function makePool(
  o: {
    minWarm?: number;
    maxSize?: number;
    idleMs?: number;
    spawnMs?: number;
    fail?: () => boolean;
    limit?: number;
    decidesAvailability?: boolean;
  } = {},
) {
  const spawned: Res[] = [];
  const pool = new Pool<Res, number>({
    name: 'double',
    minWarm: o.minWarm ?? 0,
    maxSize: o.maxSize ?? 2,
    idleMs: o.idleMs ?? 0,
    log: silent,
    policy: byRss(o.limit ?? Infinity),
    ...(o.decidesAvailability === undefined ? {} : { decidesAvailability: o.decidesAvailability }),
    spawn: async () => {
      await new Promise((r) => setTimeout(r, o.spawnMs ?? 1));
      if (o.fail?.()) throw new Error('no toolchain');
      const r = new Res();
      spawned.push(r);
      return r;
    },
  });
  return { pool, spawned };
}

async function use(
  pool: Pool<Res, number>,
  fn: (r: Res) => void | Promise<void> = () => {},
  want = -1,
  signal?: AbortSignal,
): Promise<Res> {
  const r = await pool.acquire(want, signal);
  r.busy = true;
  r.uses++;
  await fn(r);
  r.busy = false;
  pool.release(r);
  return r;
}

t.test('FIFO waiters, maxSize, and an aborted waiter leaves the queue', async (t) => {
  const { pool, spawned } = makePool({ maxSize: 1 });
  t.teardown(() => pool.destroyAll());
  const a = await pool.acquire(-1);
  const order: string[] = [];
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(new Error('deadline')), 20); // AbortSignal.timeout is unref'd: nothing else keeps this test alive
  const gone = pool.acquire(-1, ctrl.signal).catch(() => order.push('aborted'));
  const b = pool.acquire(-1).then((r) => {
    order.push('b');
    return r;
  });
  const c = pool.acquire(-1).then((r) => {
    order.push('c');
    return r;
  });
  await gone;
  t.equal(pool.waiting, 2, 'the aborted waiter left');
  pool.release(a);
  pool.release(await b);
  pool.release(await c);
  t.same(order, ['aborted', 'b', 'c']);
  t.equal(spawned.length, 1, 'never more than maxSize');
});

t.test('the policy chooses the idle resource (affinity)', async (t) => {
  const { pool } = makePool({ minWarm: 2 });
  t.teardown(() => pool.destroyAll());
  pool.start();
  t.ok(await waitFor(() => pool.stats().warm === 2));
  const first = await pool.acquire(-1);
  const second = await pool.acquire(-1);
  pool.release(first);
  pool.release(second);
  const again = await pool.acquire(first.id);
  t.equal(again.id, first.id, 'the wanted one, not the most recent');
  pool.release(again);
});

t.test(
  'after a request the pool asks for usage against the policy’s bound; status asks for a fresh reading',
  async (t) => {
    const { pool } = makePool({ limit: 100 });
    t.teardown(() => pool.destroyAll());
    const r = await use(pool);
    t.same(r.bounds, [100], 'one reading after the request, against the soft threshold');
    pool.stats();
    t.same(r.bounds, [100, undefined], 'status reads afresh');
  },
);

t.test('soft retirement: a replacement warms first, the old one serves meanwhile and retires idle', async (t) => {
  const { pool, spawned } = makePool({ minWarm: 1, maxSize: 2, spawnMs: 60, limit: 100 });
  t.teardown(() => pool.destroyAll());
  pool.start();
  await waitFor(() => pool.stats().warm === 1);
  const old = await use(pool, (r) => {
    r.rssBytes = 150;
  });
  t.equal(pool.stats().retiring, 1, 'marked for retirement');
  t.equal(pool.stats().starting, 1, 'replacement warming');
  const meanwhile = await use(pool);
  t.equal(meanwhile.id, old.id, 'the draining session still serves while the replacement warms');
  t.equal(old.closedBy, undefined);
  t.ok(await waitFor(() => old.closedBy === 'memory'), 'retired once the replacement is ready');
  t.equal(old.killedBy, undefined, 'closed, never killed');
  t.equal(spawned.length, 2);
  t.equal(pool.stats().lastRetirements[0]!.reason, 'memory');
  const next = await use(pool);
  t.not(next.id, old.id);
});

t.test('soft retirement at the cap retires at once (no room for a replacement), never a busy one', async (t) => {
  const { pool } = makePool({ maxSize: 1, limit: 100 });
  t.teardown(() => pool.destroyAll());
  const slow = use(pool, async (r) => {
    r.rssBytes = 500;
    await new Promise((x) => setTimeout(x, 30));
  });
  const queued = use(pool);
  const first = await slow; // close() throws if called while busy: the test would fail
  const second = await queued;
  t.equal(first.closedBy, 'memory');
  t.not(second.id, first.id);
});

t.test('close drains queued work, then retires everything; idempotent', async (t) => {
  const { pool, spawned } = makePool({ maxSize: 1 });
  const a = await pool.acquire(-1);
  const queued = [pool.acquire(-1), pool.acquire(-1)];
  const closed = pool.close();
  t.equal(pool.close(), closed, 'the same promise');
  await t.rejects(pool.acquire(-1), { name: 'PoolClosedError' }, 'new work is refused');
  pool.release(a);
  const b = await queued[0]!;
  pool.release(b);
  const c = await queued[1]!;
  pool.release(c);
  await closed;
  t.equal(spawned[0]!.closedBy, 'shutdown');
  t.equal(pool.size, 0);
});

t.test('destroyAll fails queued work and kills busy resources; idempotent', async (t) => {
  const { pool, spawned } = makePool({ maxSize: 1 });
  await pool.acquire(-1);
  const queued = pool.acquire(-1);
  const d = pool.destroyAll();
  t.equal(pool.destroyAll(), d);
  await t.rejects(queued, { name: 'PoolClosedError' });
  await d;
  t.equal(spawned[0]!.killedBy, 'shutdown');
});

t.test('idle resources above minWarm are evicted after idleMs', async (t) => {
  // The pool's idle sweep (setInterval) and its idle clock (Date.now) run on a mocked clock, moved by hand: a real
  // 30 ms pause could end past idleMs on a loaded machine, and the check before idleMs then saw an eviction.
  // setTimeout stays real (the double's starts and closes, waitFor).
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 0 });
  t.teardown(() => mock.timers.reset());
  const { pool, spawned } = makePool({ minWarm: 1, maxSize: 3, idleMs: 80 });
  t.teardown(() => pool.destroyAll());
  const held = await Promise.all([pool.acquire(-1), pool.acquire(-1), pool.acquire(-1)]);
  for (const r of held) pool.release(r);
  t.equal(pool.stats().warm, 3);
  mock.timers.tick(79);
  t.equal(pool.stats().warm, 3, 'not before idleMs');
  mock.timers.tick(1);
  t.ok(await waitFor(() => pool.stats().warm === 1 && pool.size === 1), 'down to minWarm');
  t.same(spawned.filter((r) => r.closedBy === 'idle').length, 2);
  mock.timers.tick(10 * 80);
  t.equal(pool.stats().warm, 1, 'minWarm stays');
});

t.test('start failures: waiters fail fast, later ones too during the backoff', async (t) => {
  const { pool } = makePool({ fail: () => true });
  t.teardown(() => pool.destroyAll());
  await t.rejects(pool.acquire(-1, AbortSignal.timeout(5000)), { name: 'LeanStartError', message: /no toolchain/ });
  await t.rejects(pool.acquire(-1, AbortSignal.timeout(5000)), { name: 'LeanStartError' });
  t.equal(pool.stats().failedStarts, 1, 'the backoff holds off a second start');
});

// Issue 27, defect 1: only the environment's own header pool decides the environment's availability.
t.test("a start failure says whether it is the environment's (own header) or one header's", async (t) => {
  const own = makePool({ fail: () => true });
  const other = makePool({ fail: () => true, decidesAvailability: false });
  t.teardown(() => Promise.all([own.pool.destroyAll(), other.pool.destroyAll()]));
  const failure = (p: Pool<Res, number>) =>
    p.acquire(-1, AbortSignal.timeout(5000)).then(
      () => undefined,
      (e: unknown) => e,
    );
  t.match(await failure(own.pool), { name: 'LeanStartError', environmentWide: true });
  t.match(await failure(other.pool), { name: 'LeanStartError', environmentWide: false });
  t.match(await failure(other.pool), { name: 'LeanStartError', environmentWide: false }, 'during the backoff too');
});

t.test('an unhealthy resource is retired at release and replaced', async (t) => {
  const { pool, spawned } = makePool({ minWarm: 1 });
  t.teardown(() => pool.destroyAll());
  pool.start();
  await use(pool, (r) => {
    r.healthy = false;
  });
  t.ok(await waitFor(() => spawned.length === 2 && pool.stats().warm === 1));
  t.equal(pool.stats().lastRetirements[0]!.reason, 'unhealthy');
});

t.test('the agent finds pools by environment and header, and forgets the oldest empty ones past 16', async (t) => {
  const agent = new PoolAgent<Res, number>({ perEnv: 4, total: 4 });
  t.teardown(() => agent.destroy());
  const make = () => makePool().pool;
  const first = agent.pool('env', 'h0', make);
  t.equal(agent.find('env', 'h0'), first, 'found once made');
  t.equal(agent.find('env', 'h1'), undefined);
  t.equal(agent.find('other', 'h0'), undefined, 'by environment too');
  for (let i = 1; i <= 16; i++) agent.pool('env', `h${i}`, make);
  t.equal(agent.pools().length, 16, 'seventeen empty pools: the oldest is dropped');
  t.equal(agent.find('env', 'h0'), undefined, 'and no longer found');
  t.ok(agent.find('env', 'h16'), 'the newest stays');
  t.not(agent.pool('env', 'h0', make), first, 'asked again: a new pool');
});
