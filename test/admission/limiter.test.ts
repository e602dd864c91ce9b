import t from 'tap';
import type { Caller } from '../../src/admission/keys.ts';
import { ConcurrencyLimiter } from '../../src/admission/limiter.ts';
import { ServiceError } from '../../src/errors.ts';
import { effectiveTimeoutSeconds, withDeadline } from '../../src/admission/request-timeout.ts';
import { sleep } from '../helpers.ts';
import { markLeanRunning } from '../../src/sync/signal-marks.ts';

const caller = (id: string, concurrency: number): Caller => ({ id, keyClass: 'user', concurrency });

t.test('slots, FIFO order and release hand-over', async (t) => {
  const lim = new ConcurrencyLimiter({ queueLimit: () => 10, retryAfterSeconds: 1 });
  const c = caller('a', 2);
  const r1 = await lim.acquire(c);
  const r2 = await lim.acquire(c);
  const order: number[] = [];
  const waiting = [3, 4, 5].map((n) =>
    lim.acquire(c).then((rel) => {
      order.push(n);
      return rel;
    }),
  );
  t.same(lim.stats().callers.a, { active: 2, queued: 3 });
  r1();
  r1(); // idempotent: a double release frees one slot only
  const r3 = await waiting[0]!;
  t.same(order, [3]);
  t.same(lim.stats().callers.a, { active: 2, queued: 2 });
  r2();
  r3();
  (await waiting[1]!)();
  (await waiting[2]!)();
  t.same(order, [3, 4, 5]);
  t.same(lim.stats(), { active: 0, queued: 0, callers: {} }, 'an idle bucket is not listed');
});

t.test('a caller that never waits leaves no queue behind; a released slot goes to the waiter first', async (t) => {
  const lim = new ConcurrencyLimiter({ queueLimit: () => 10, retryAfterSeconds: 1 });
  const c = caller('a', 1);
  const r1 = await lim.acquire(c);
  const order: string[] = [];
  const waiting = lim.acquire(c).then((rel) => (order.push('waiter'), rel));
  t.same(lim.stats().callers.a, { active: 1, queued: 1 });
  r1();
  const newcomer = lim.acquire(c).then((rel) => (order.push('newcomer'), rel));
  (await waiting)();
  (await newcomer)();
  t.same(order, ['waiter', 'newcomer'], 'the released slot went to the waiter, not to a newcomer');
  t.same(lim.stats(), { active: 0, queued: 0, callers: {} }, 'an idle bucket is not listed');
  (await lim.acquire(c))();
  t.same(lim.stats(), { active: 0, queued: 0, callers: {} }, 'nor one that never queued');
});

t.test('idle buckets are kept for their next request, up to a bound', async (t) => {
  const lim = new ConcurrencyLimiter({ queueLimit: () => 10, retryAfterSeconds: 1 });
  (await lim.acquire(caller('a', 1)))();
  t.equal(lim.buckets, 1, 'a caller idle again keeps its bucket');
  (await lim.acquire(caller('a', 1)))();
  t.equal(lim.buckets, 1, 'and uses it again');
  // Many callers at once (anonymous callers are told apart by address): the idle ones past the bound go.
  const held = await Promise.all(Array.from({ length: 500 }, (_, i) => lim.acquire(caller(`c${i}`, 1))));
  t.equal(lim.buckets, 501, 'one bucket per active caller');
  for (const release of held) release();
  t.equal(lim.buckets, 64, 'at most 64 idle buckets are kept');
  t.same(lim.stats(), { active: 0, queued: 0, callers: {} }, 'none of them listed');
});

t.test('callers do not share slots', async (t) => {
  const lim = new ConcurrencyLimiter({ queueLimit: () => 0, retryAfterSeconds: 1 });
  const ra = await lim.acquire(caller('a', 1));
  const rb = await lim.acquire(caller('b', 1));
  await t.rejects(lim.acquire(caller('a', 1)), { code: 'queue_full' });
  ra();
  rb();
});

t.test('a full queue is refused with 429 and Retry-After', async (t) => {
  const lim = new ConcurrencyLimiter({ queueLimit: () => 1, retryAfterSeconds: 7 });
  const c = caller('a', 1);
  const r = await lim.acquire(c);
  const queued = lim.acquire(c);
  const err = await lim.acquire(c).catch((e: unknown) => e);
  t.ok(err instanceof ServiceError);
  t.equal((err as ServiceError).status, 429);
  t.equal((err as ServiceError).retryAfter, 7);
  r();
  (await queued)();
});

t.test('a waiter whose client left is removed and never granted', async (t) => {
  const lim = new ConcurrencyLimiter({ queueLimit: () => 5, retryAfterSeconds: 1 });
  const c = caller('a', 1);
  const r = await lim.acquire(c);
  const ctrl = new AbortController();
  const gone = lim.acquire(c, ctrl.signal);
  const next = lim.acquire(c);
  ctrl.abort(new Error('client gone'));
  await t.rejects(gone, /client gone/);
  t.same(lim.stats().callers.a, { active: 1, queued: 1 });
  r();
  (await next)();
  t.equal(lim.stats().active, 0);
});

t.test('deadline cap and enforcement', async (t) => {
  t.equal(effectiveTimeoutSeconds(3600, 'user', 900), 900);
  t.equal(effectiveTimeoutSeconds(3600, 'anonymous', 900), 900);
  t.equal(effectiveTimeoutSeconds(3600, 'admin', 900), 3600);
  t.equal(effectiveTimeoutSeconds(10, 'user', 900), 10);
  let sawAbort = false;
  const err = await withDeadline(0.05, undefined, async (signal) => {
    signal.addEventListener('abort', () => {
      sawAbort = true;
    });
    await sleep(1000);
    return 1;
  }).catch((e: unknown) => e);
  t.equal((err as ServiceError).code, 'timeout');
  t.ok(sawAbort, 'the work is told to stop');
  t.equal(await withDeadline(1, undefined, async () => 42), 42);
  const parent = new AbortController();
  const p = withDeadline(
    5,
    parent.signal,
    (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
  );
  parent.abort(new Error('parent'));
  await t.rejects(p, /parent/);
});

t.test('work that holds the thread past its deadline is a timeout, never a result (issue 23)', async (t) => {
  const late = withDeadline(0.05, undefined, async () => {
    const end = Date.now() + 120;
    while (Date.now() < end); // the timer cannot fire while this runs
    return 'done';
  });
  await t.rejects(late, { code: 'timeout' });
  t.equal(await withDeadline(5, undefined, async () => 'in time'), 'in time');
});

t.test('a duration whose timer list is kept: deadlines still fire, and nothing holds the process open', async (t) => {
  // 1 s is the shortest kept duration (admission/request-timeout.ts keepTimerList): the first deadline
  // keeps its list; the second, after the first was cleared, is in that list and must still fire.
  t.equal(await withDeadline(1, undefined, async () => 'quick'), 'quick');
  await t.rejects(
    withDeadline(1, undefined, () => new Promise(() => {})),
    { code: 'timeout' },
    'a deadline in a kept list fires',
  );
  // Nothing holds the process open: once a deadline of a fresh duration (whose list gets kept) is
  // done, no timer more keeps the event loop alive (a refed keeper, or a deadline not cleared, would).
  const holding = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = holding();
  t.equal(await withDeadline(30, undefined, async () => 'done'), 'done');
  t.equal(holding(), before, 'no timer left keeping the process alive');
});

t.test("the deadline is Lean's timeout only while Lean runs the request (src/sync/signal-marks.ts)", async (t) => {
  const waiting = await withDeadline(0.05, undefined, () => new Promise(() => {})).catch((e: unknown) => e);
  t.equal((waiting as ServiceError).code, 'timeout', 'no Lean ran: the service deadline, 504');
  t.equal((waiting as ServiceError).status, 504);
  const running = await withDeadline(0.05, undefined, (signal) => {
    markLeanRunning(signal);
    return new Promise(() => {});
  }).catch((e: unknown) => e);
  t.match(running, { code: 'lean_timeout', status: 200, message: /lean worker timeout.*while Lean ran it/ });
  const after = await withDeadline(0.05, undefined, async (signal) => {
    markLeanRunning(signal)();
    return new Promise(() => {});
  }).catch((e: unknown) => e);
  t.equal((after as ServiceError).code, 'timeout', 'Lean done before the deadline: the service deadline');
});
