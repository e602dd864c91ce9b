/** deadlineSignal: the parent or the time, whichever first; it fires even when a GC ran meanwhile. */
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import t from 'tap';
import { deadlineSignal } from '../../src/util/timeout-signal.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

t.test(
  'aborts after ms although nothing but its listener holds it and a GC ran (Node 20 AbortSignal.any did not)',
  async (t) => {
    const parent = new AbortController();
    let fired = false;
    // Nothing keeps the returned object: only the listener on its signal.
    deadlineSignal(parent.signal, 50).signal.addEventListener('abort', () => (fired = true));
    gc();
    await sleep(20);
    gc();
    await sleep(200);
    t.ok(fired, 'the deadline fired');
  },
);

t.test('the time runs out: TimeoutError, timedOut', async (t) => {
  const d = deadlineSignal(new AbortController().signal, 10);
  await sleep(60);
  t.ok(d.signal.aborted);
  t.equal((d.signal.reason as Error).name, 'TimeoutError');
  t.ok(d.timedOut);
});

t.test('the parent aborts first: its reason, not timed out; a parent already aborted aborts at once', async (t) => {
  const parent = new AbortController();
  const d = deadlineSignal(parent.signal, 10_000);
  t.notOk(d.signal.aborted);
  parent.abort(new Error('client gone'));
  t.equal((d.signal.reason as Error).message, 'client gone');
  t.notOk(d.timedOut);
  d.clear();
  const early = deadlineSignal(AbortSignal.abort('before'), 10_000);
  t.equal(early.signal.reason, 'before');
  early.clear();
});

t.test('clear: no abort after the time, and the parent is left', async (t) => {
  const parent = new AbortController();
  const d = deadlineSignal(parent.signal, 10);
  d.clear();
  parent.abort();
  await sleep(40);
  t.notOk(d.signal.aborted, 'neither the timer nor the parent aborts it after clear');
  t.notOk(d.timedOut);
});
