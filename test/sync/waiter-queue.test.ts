/** The one FIFO-waiter-with-abort primitive (admission limiter, Lean pools, jobs waiting for an equal run). */
import t from 'tap';
import { WaiterQueue } from '../../src/sync/waiter-queue.ts';

t.test('FIFO grants, an aborted waiter leaves at once, failAll fails the rest in order', async (t) => {
  let left = 0;
  const q = new WaiterQueue<string, number>(() => left++);
  const ctrl = new AbortController();
  const got: string[] = [];
  const a = q.wait(1).then((v) => got.push(`a:${v}`));
  const b = q.wait(2, ctrl.signal).catch((e: Error) => got.push(`b:${e.message}`));
  const c = q.wait(3).then((v) => got.push(`c:${v}`));
  t.equal(q.length, 3);
  t.equal(q.peek(), 1);
  ctrl.abort(new Error('gone'));
  await b;
  t.equal(q.length, 2);
  t.equal(left, 1, 'onLeave called for the aborted waiter');
  t.ok(q.grant('x'));
  t.equal(q.peek(), 3, 'the aborted one is skipped');
  q.failAll(new Error('closed'));
  await a;
  await c.catch((e: Error) => got.push(`c:${e.message}`));
  t.same(got, ['b:gone', 'a:x', 'c:closed']);
  t.notOk(q.grant('y'), 'nobody waits');
  await t.rejects(q.wait(4, AbortSignal.abort(new Error('already'))), /already/);
  t.equal(q.length, 0);
});

t.test('waiting: every waiter’s data in order of arrival, without one that left', async (t) => {
  const q = new WaiterQueue<void, string>();
  const ctrl = new AbortController();
  const all = [q.wait('a'), q.wait('b', ctrl.signal).catch(() => undefined), q.wait('c')];
  t.same([...q.waiting()], ['a', 'b', 'c']);
  ctrl.abort(new Error('gone'));
  t.same([...q.waiting()], ['a', 'c']);
  while (q.grant()) continue;
  await Promise.all(all);
  t.same([...q.waiting()], []);
});
