/**
 * Kimina's answer for a snippet, pinned where the first mutation run
 * (bench/results/mutation-2026-11-27T10-51-46-648Z.json) found it unguarded: the error of a Lean
 * failure that left no tool error, and `time` as a difference of clock readings.
 */
import t from 'tap';
import type { ToolResponse } from '../../../src/contract/tools.ts';
import { toReplResponse } from '../../../src/server/adapters/kimina.ts';
import { makeApp } from '../../helpers.ts';
import { scriptedRunner } from '../../tools/runner.ts';

t.test('a Lean failure without a tool error is still an error, with a fixed text', async (t) => {
  const r = { tool_messages: { errors: [], warnings: [], infos: [] } } as unknown as ToolResponse<'check'>;
  t.same(toReplResponse('a', 0.5, r, true), { id: 'a', time: 0.5, error: 'Lean failed while elaborating' });
});

t.test('`time` is a difference of clock readings (a fake clock: no wall-clock figure is asserted)', async (t) => {
  const app = await makeApp({ lean: scriptedRunner(() => ({})) });
  t.teardown(() => app.close());
  // One millisecond per reading, from far above zero: the snippet's time is a few readings, a sum
  // of two readings (a sign error) near two thousand seconds.
  const real = performance.now.bind(performance);
  let now = 1_000_000;
  performance.now = () => now++;
  t.teardown(() => {
    performance.now = real;
  });
  const res = await app.inject({
    method: 'POST',
    url: '/api/check',
    payload: { snippets: [{ id: 's', code: 'def x := 1' }] },
  });
  performance.now = real;
  t.equal(res.statusCode, 200, res.body);
  const [only] = (res.json() as { results: { time: number }[] }).results;
  t.ok(only!.time >= 0 && only!.time < 10, `time ${only!.time} s`);
});
