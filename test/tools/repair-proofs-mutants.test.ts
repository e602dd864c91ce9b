/**
 * repair_proofs' answer, pinned where the first mutation run
 * (bench/results/mutation-2026-11-27T10-51-46-648Z.json) found it unguarded: it needs Lean, and its
 * timings are differences of clock readings.
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { repair_proofs } from '../../src/tools/repair-proofs.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

t.test('repair_proofs needs Lean', async (t) => {
  const req = parseToolRequest('repair_proofs', { content: 'theorem a : True := trivial\n', environment: 'x' });
  t.equal(repair_proofs.needsLean(req), true);
});

t.test('the timings are differences of the clock (a fake one: no wall-clock figure is asserted)', async (t) => {
  // One millisecond per reading, from far above zero: a duration is a few readings, a sum of two
  // readings (a sign error) near two million.
  const real = performance.now.bind(performance);
  let now = 1_000_000;
  performance.now = () => now++;
  t.teardown(() => {
    performance.now = real;
  });
  const req = parseToolRequest('repair_proofs', { content: 'theorem a : True := trivial\n', environment: 'x' });
  const r = await repair_proofs.run(req, toolCtx(scriptedRunner(() => ({}))));
  performance.now = real;
  t.same(Object.keys(r.timings).sort(), ['parse_ms', 'total_ms']);
  for (const [k, v] of Object.entries(r.timings)) t.ok(v >= 0 && v < 1000, `${k} = ${v}`);
  t.equal(r.okay, true);
});
