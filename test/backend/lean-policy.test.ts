/** The Lean pool policy: prefix affinity, and retirement by memory (soft), uses, REPL states and CPU time. */
import t from 'tap';
import { leanPolicy } from '../../src/backend/pool/lean-policy.ts';
import type { WarmSession } from '../../src/backend/pool/warm-session.ts';

const s = (id: number, uses = 0, states = 1) => ({ id, uses, states }) as unknown as WarmSession;
const MiB = 2 ** 20;
const policy = leanPolicy({ softRssBytes: 700 * MiB, maxUses: 10, maxStates: 100, maxCpuSeconds: 50 });

t.test('choose: the longest prefix, then the most recently released', async (t) => {
  const idle = [s(1), s(2), s(3)];
  t.equal(
    policy.choose(idle, (x) => (x.id === 1 ? 5 : 0)),
    0,
  );
  t.equal(
    policy.choose(idle, () => 0),
    2,
    'ties go to the warmest (last released)',
  );
  t.equal(
    policy.choose(idle, (x) => (x.id === 3 ? -1 : 2)),
    1,
  );
});

t.test('retire: soft memory, uses, states, CPU; nothing below them', async (t) => {
  const ok = { rssBytes: 100 * MiB, cpuSeconds: 1 };
  t.equal(policy.retire(s(1, 1, 5), ok), undefined);
  t.match(policy.retire(s(1, 1, 5), { ...ok, rssBytes: 701 * MiB }), /^memory \(701 MiB > soft 700 MiB\)$/);
  t.match(policy.retire(s(1, 10, 5), ok), /^uses/);
  t.match(policy.retire(s(1, 1, 100), ok), /^states/);
  t.match(policy.retire(s(1, 1, 5), { ...ok, cpuSeconds: 51 }), /^cpu time/);
});

t.test('rssBound: the soft threshold, the one memory figure retire compares with (none: never)', async (t) => {
  t.equal(policy.rssBound, 700 * MiB);
  t.equal(policy.retire(s(1, 1, 5), { rssBytes: 700 * MiB, cpuSeconds: 1 }), undefined, 'at the bound: kept');
  const noSoft = leanPolicy({ softRssBytes: 0, maxUses: 10, maxStates: 100, maxCpuSeconds: 0 });
  t.equal(noSoft.rssBound, Infinity);
  t.equal(noSoft.retire(s(1, 1, 5), { rssBytes: 2 ** 50, cpuSeconds: 1 }), undefined, 'memory never retires');
});
