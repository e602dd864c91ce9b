/** Liveness and readiness on a single machine (no NATS): live always, ready while Lean runs for some environment. */
import t from 'tap';
import { makeApp } from '../helpers.ts';

t.test('a single machine: live, and ready while Lean runs for some environment', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const live = await app.inject({ method: 'GET', url: '/health/live' });
  t.equal(live.statusCode, 200);
  t.same(live.json(), { status: 'live' });
  const ready = await app.inject({ method: 'GET', url: '/health/ready' });
  t.equal(ready.statusCode, 200);
  t.match(ready.json(), {
    status: 'ready',
    reasons: [],
    checks: { local_lean: { 'lean-test': true, 'lean-missing': false } },
  });
});

t.test('no environment can run Lean: not ready, saying why (still live)', async (t) => {
  const app = await makeApp({ probe: () => ({ available: false, reason: 'no toolchain (test)' }) });
  t.teardown(() => app.close());
  const ready = await app.inject({ method: 'GET', url: '/health/ready' });
  t.equal(ready.statusCode, 503);
  t.match(ready.json(), { status: 'not_ready', reasons: [/Lean cannot run here/] });
  t.equal((await app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200);
});
