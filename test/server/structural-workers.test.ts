/**
 * Structural tools run on worker threads: the event loop stays free while one runs, and
 * the request's deadline stops a task by terminating its worker (the pool replaces it).
 */
import t from 'tap';
import { StructuralPool } from '../../src/workers/structural-pool.ts';
import { ServiceError } from '../../src/errors.ts';
import { makeApp, TEST_ENV, testConfig } from '../helpers.ts';
import { testEnv } from '../tools/runner.ts';

const req = (content: string) => ({
  content,
  environment: 'x',
  ignore_imports: true,
  reparse: false,
  theorems_only: true,
  timeout_seconds: 60,
});

t.test('a task past its deadline is stopped by terminating its worker; the next task runs', async (t) => {
  // No reserve thread: one caller; each thread costs ~0.5 s of CPU to load the sources.
  const pool = new StructuralPool({ threads: 1, reserveThreads: 0 });
  t.teardown(() => pool.destroy());
  const ok = (await pool.run(
    'theorem2sorry',
    req('theorem t : True := trivial\n'),
    testEnv,
    new AbortController().signal,
  )) as { content: string };
  t.equal(ok.content, 'theorem t : True := sorry\n');
  // Long enough to still be running at the abort (a few seconds of parsing).
  const ac = new AbortController();
  setTimeout(() => ac.abort(new ServiceError('timeout', 'the request exceeded its deadline of 0.2 s')), 200);
  await t.rejects(pool.run('theorem2sorry', req('namespace a\n'.repeat(4_000_000)), testEnv, ac.signal), {
    code: 'timeout',
  });
  // Answered at the abort, not when the work would end: its worker was terminated, not left to finish.
  t.equal(pool.stats().terminated, 1);
  const again = (await pool.run(
    'theorem2sorry',
    req('theorem u : True := trivial\n'),
    testEnv,
    new AbortController().signal,
  )) as { content: string };
  t.equal(again.content, 'theorem u : True := sorry\n', 'a replacement worker serves the next task');
});

t.test(
  'over HTTP: the event loop answers /v1/status while a structural request runs; limits name the field',
  async (t) => {
    const app = await makeApp({ config: testConfig({ limits: { names: 3 } }) });
    t.teardown(() => app.close());
    t.equal(await app.warmWorkers(), true, 'the worker threads start');
    // ~0.4 s of work on a quiet machine: long against the few milliseconds of the status request timed below.
    const big = 'namespace a\n'.repeat(100_000);
    const slow = app.inject({
      method: 'POST',
      url: '/api/v1/theorem2sorry',
      payload: { content: big, environment: TEST_ENV, reparse: false },
    });
    // Once the request has reached its worker (waited for, not guessed: a loaded machine may take longer than
    // any fixed pause to parse the body), a status request is answered while it runs there.
    let answered = false;
    void slow.then(() => (answered = true));
    while (!answered && (await app.inject({ method: 'GET', url: '/v1/status' })).json().workers.running < 1)
      await new Promise((r) => setTimeout(r, 5));
    const status = await app.inject({ method: 'GET', url: '/v1/status' });
    const answeredFirst = !answered;
    t.equal(status.statusCode, 200);
    const res = await slow;
    t.equal(res.statusCode, 200);
    // Every command came back (reprinted one blank line apart, AXLE's layout) after the environment's header.
    const content: string = res.json().content;
    t.equal(content.split('namespace a\n').length - 1, 100_000, 'the rewrite came back whole');
    t.ok(answeredFirst, 'status was answered before the structural request (order, not time)');
    t.equal(status.json().workers.running, 1, 'the request was running on a worker meanwhile');
    const limited = await app.inject({
      method: 'POST',
      url: '/api/v1/theorem2sorry',
      payload: { content: 'x', environment: TEST_ENV, reparse: false, names: ['a', 'b', 'c', 'd'] },
    });
    t.equal(limited.statusCode, 400);
    t.equal(limited.json().error.code, 'invalid_request');
    t.match(limited.json().error.message, /^names has 4 entries; the limit is 3 \(limits\.names\)/);
    t.same(limited.json().error.details[0].field, 'names');
  },
);
