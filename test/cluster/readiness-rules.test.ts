/** The readiness rules of a cluster node (src/cluster/readiness.ts), case by case, without NATS. */
import t from 'tap';
import { readiness, type ReadinessInputs } from '../../src/cluster/readiness.ts';

const healthy: ReadinessInputs = {
  role: 'both',
  connected: true,
  jetstream: { ok: true, last_ok_ms: 100 },
  liveWorkers: 2,
  workersPerEnvironment: { a: 1, b: 1 },
  servedEver: new Set(['a', 'b']),
  localLean: { a: true },
};

t.test('ready when every check holds', async (t) => {
  t.same(readiness(healthy).reasons, []);
  t.equal(readiness(healthy).ready, true);
});

t.test('each failing check makes the node unready, with its reason', async (t) => {
  const cases: [Partial<ReadinessInputs>, RegExp][] = [
    [{ connected: false }, /NATS is unreachable/],
    [
      { jetstream: { ok: false, last_ok_ms: 4000, error: 'timeout' } },
      /JetStream has not answered for 4000 ms: timeout/,
    ],
    [
      { resourcesMissing: 'JetStream lost lean_WORK (NATS restarted without its store?): recreating' },
      /JetStream lost lean_WORK .*recreating/,
    ],
    [{ liveWorkers: 0, workersPerEnvironment: {} }, /no live worker in the cluster/],
    [{ workersPerEnvironment: { a: 1, b: 0 } }, /no live worker can run Lean for environment b any more/],
    [{ localLean: { a: false } }, /Lean cannot run here/],
  ];
  for (const [over, reason] of cases) {
    const r = readiness({ ...healthy, ...over });
    t.equal(r.ready, false, reason.source);
    t.match(r.reasons.join('\n'), reason);
  }
});

t.test('each role checks only its own part', async (t) => {
  const noWorkers = { liveWorkers: 0, workersPerEnvironment: {} };
  t.equal(readiness({ ...healthy, ...noWorkers, role: 'worker' }).ready, true, 'a worker needs no other worker');
  t.equal(readiness({ ...healthy, localLean: {}, role: 'front' }).ready, true, 'a front needs no local Lean');
  t.equal(
    readiness({ ...healthy, workersPerEnvironment: { a: 1 }, servedEver: new Set(['a']), role: 'front' }).ready,
    true,
    'an environment never served does not hold a front back',
  );
});
