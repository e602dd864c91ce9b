/** /v1/status: per environment and canonical header, the sessions (warm, busy, retiring), their RSS and uses, and the last retirements. */
import t from 'tap';
import { makeApp, TEST_ENV } from '../helpers.ts';

t.test('status shows each header key with its sessions and retirements', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const check = (content: string, ignore_imports = true) =>
    app.inject({ method: 'POST', url: '/api/v1/check', payload: { content, environment: TEST_ENV, ignore_imports } });
  t.equal((await check('def a := 1\n')).statusCode, 200);
  t.equal((await check('import Batteries\n-- a comment\nimport Batteries\n\ndef b := 2\n', false)).statusCode, 200);
  const pools = (await app.inject({ method: 'GET', url: '/v1/status' })).json().pools[TEST_ENV];
  t.same(Object.keys(pools.headers).sort(), ['import Batteries', 'import Mathlib'], 'one key per canonical header');
  t.equal(pools.processes, 2);
  for (const key of ['import Mathlib', 'import Batteries']) {
    const h = pools.headers[key];
    t.equal(h.sessions.length, 1, key);
    t.match(h.sessions[0], { state: 'warm', uses: 1, rssMb: Number });
    t.ok(h.sessions[0].rssMb > 0, 'the resident size of a live process');
    t.same(h.lastRetirements, []);
  }
  t.match(pools.deadlines, { heartbeatStops: 0, answeredInGrace: 0, killedAfterGrace: 0 });
  // A crash retires its session: the reason is listed.
  await check('CRASH\n');
  const after = (await app.inject({ method: 'GET', url: '/v1/status' })).json().pools[TEST_ENV];
  t.match(after.headers['import Mathlib'].lastRetirements, [{ reason: 'fault: crashed' }]);
});
