/**
 * Issue 23, item 6: every response is bounded (limits.responseFactor × the request, at least
 * limits.responseMinBytes). The size that failed: rename of a short name into a long one at
 * every occurrence, 588 KB in → 382 MB out; refused here before the output is built, on the
 * main thread and on a worker thread alike.
 */
import t from 'tap';
import { makeApp, TEST_ENV } from '../helpers.ts';
import { checkResponseSize, outputBudget, responseChars, responseLimit } from '../../src/tools/response-bound.ts';
import { OutputLimitError } from '../../src/syntax/edits.ts';

/** ~300 KB of references to `a` and a 288 KB new name: ~9.6e9 characters if built. */
const body = () => ({
  content: `def a : Nat := 1\n${'example : a = a := rfl\n'.repeat(13_000)}`,
  environment: TEST_ENV,
  reparse: false,
  declarations: { a: 'b'.repeat(288_000) },
});

for (const workers of [false, true]) {
  t.test(
    `rename blow-up refused with 413 before the work (${workers ? 'worker thread' : 'main thread'})`,
    async (t) => {
      const app = await makeApp();
      t.teardown(() => app.close());
      if (workers) t.equal(await app.warmWorkers(), true, 'the worker threads start');
      const payload = JSON.stringify(body());
      t.ok(payload.length > 580_000, `the request is ${payload.length} bytes`);
      const res = await app.inject({ method: 'POST', url: '/api/v1/rename', payload });
      t.equal(res.statusCode, 413);
      const e = res.json<{ error: { code: string; message: string } }>();
      t.equal(e.error.code, 'response_too_large');
      t.match(e.error.message, /would be at least \d+ characters, over the limit of \d+/);
      t.match(e.error.message, /limits\.responseFactor/, 'the message names the setting');
      const small = await app.inject({
        method: 'POST',
        url: '/api/v1/rename',
        payload: { ...body(), content: 'def a : Nat := 1\nexample : a = a := rfl\n' },
      });
      t.equal(small.statusCode, 200, 'a request within its bound is served (the minimum applies)');
    },
  );
}

t.test('the bound and its measures', async (t) => {
  t.equal(responseLimit(1_000, { responseFactor: 8, responseMinBytes: 100 }), 8_000);
  t.equal(responseLimit(1, { responseFactor: 8, responseMinBytes: 100 }), 100, 'at least the minimum');
  const v = { content: 'x'.repeat(1_000), list: ['a', 'b'], n: 3, nested: { k: true } };
  const exact = JSON.stringify(v).length;
  const est = responseChars(v);
  t.ok(Math.abs(est - exact) < 40, `the estimate ${est} is near the JSON length ${exact}`);
  t.ok(responseChars({ a: 'x'.repeat(10_000) }, 100) > 100, 'past stopAt: reported as over');
  t.throws(() => checkResponseSize(v, 500), OutputLimitError);
  t.doesNotThrow(() => checkResponseSize(v, 5_000));
  const charge = outputBudget(10);
  charge(6);
  t.throws(() => charge(6), OutputLimitError, 'a running total throws once past the limit');
});
