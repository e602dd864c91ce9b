/**
 * Kimina's answer for a snippet, pinned where the first mutation run
 * (bench/results/mutation-2026-11-27T10-51-46-648Z.json) found it unguarded: the error of a Lean
 * failure that left no tool error, and `time` as a difference of clock readings.
 */
import t, { type Test } from 'tap';
import { LeanFailure, type LeanRunner } from '../../../src/backend/index.ts';
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

/**
 * Two snippets of one anonymous caller (one job at a time: admission's default anonymousConcurrency) on a
 * clock that moves only while Lean runs the first job, 2 s: the second waits those 2 s in the queue, then
 * runs in no time (a clock moving in its job too would move under the first's last reading as well).
 */
async function queuedTimes(t: Test, answer: () => void): Promise<unknown> {
  const real = performance.now.bind(performance);
  let now = 1_000_000;
  performance.now = () => now;
  t.teardown(() => {
    performance.now = real;
  });
  const base = scriptedRunner(() => ({}));
  let jobs = 0;
  const lean: LeanRunner = {
    async elaborate(env, job, o) {
      if (jobs++ === 0) now += 2000;
      answer();
      return base.elaborate(env, job, o);
    },
  };
  const app = await makeApp({ lean });
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/api/check',
    payload: {
      snippets: [
        { id: 'a', code: 'def x := 1' },
        { id: 'b', code: 'def y := 1' },
      ],
    },
  });
  performance.now = real;
  t.equal(res.statusCode, 200, res.body);
  return res.json();
}

t.test('`time` is the REPL’s: the time a snippet waited in the queue is not counted', async (t) => {
  const body = (await queuedTimes(t, () => {})) as { results: { id: string; time: number }[] };
  t.same(
    body.results.map((r) => [r.id, r.time]),
    [
      ['a', 2],
      ['b', 0],
    ],
  );
});

t.test('a snippet over a resource cap: its `time` does not count the queue either', async (t) => {
  // Fixed here: the cap's answer counted the wait in the queue, which the other answers leave out.
  const body = (await queuedTimes(t, () => {
    throw new LeanFailure('memory', 'the REPL went over its memory limit', '');
  })) as { results: { id: string; time: number; error?: string }[] };
  t.same(
    body.results.map((r) => [r.id, r.time, typeof r.error]),
    [
      ['a', 2, 'string'],
      ['b', 0, 'string'],
    ],
  );
});
