/**
 * The stop texts the backend reads (issue 27, defect 7) against every recorded one: Lean's heartbeat
 * stop names its budget (`stoppedAt`), the kernel's names none (`isKernelTimeout`). The recordings:
 * lean4 tests/lean/run/3554.lean and tests/lean/run/kernel_maxheartbeats.lean under ../shared/recorded.
 */
import t from 'tap';
import { isKernelTimeout, stoppedAt } from '../../src/backend/heartbeats/max-heartbeats.ts';
import { recordedIndexFor } from '../recorded/index.ts';

t.test('every recorded heartbeat and kernel stop is recognised', (t) => {
  const items = recordedIndexFor(t);
  if (!items) return;
  const of = (cls: string) => items.flatMap((it) => it.messages.filter((m) => m.cls === cls).map((m) => ({ it, m })));
  const heartbeat = of('heartbeat_timeout');
  const kernel = of('kernel_timeout');
  t.ok(heartbeat.length >= 1 && kernel.length >= 1, `${heartbeat.length} heartbeat, ${kernel.length} kernel stops`);
  for (const { it, m } of heartbeat) {
    // `#guard_msgs` normalizes whitespace; the budget is the number Lean printed.
    t.equal(stoppedAt(m.text), Number(/heartbeats \((\d+)\)/.exec(m.text)![1]), `${it.file}:${it.line}`);
    t.notOk(isKernelTimeout(m.text));
  }
  for (const { it, m } of kernel) {
    t.ok(isKernelTimeout(m.text), `${it.file}:${it.line}`);
    t.equal(stoppedAt(m.text), undefined, 'the kernel names no budget');
  }
  t.end();
});
