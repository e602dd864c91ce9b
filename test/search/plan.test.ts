/**
 * Planning a `goal.start` (src/search/start.ts, plan-pool.ts): a theorem in a large content is
 * found on the plan worker thread with the same plan as inline, its errors keep their codes
 * across the thread, and the start's deadline stops the worker.
 */
import t from 'tap';
import { isServiceError } from '../../src/errors.ts';
import { PlanPool } from '../../src/search/plan-pool.ts';
import { pickSorries, planStart } from '../../src/search/start.ts';

const unit = (i: number) => `theorem t${i} (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  exact ⟨hp, hq⟩\n\n`;
const content = (n: number) => `import Lean\n\n${Array.from({ length: n }, (_, i) => unit(i)).join('')}`;
const never = new AbortController().signal;

t.test('a theorem of a large content is planned on the worker, as inline', async (t) => {
  const pool = new PlanPool(1_000);
  t.teardown(() => pool.destroy());
  const text = content(200);
  t.ok(text.length > 1_000, 'above the inline bound');
  const off = await pool.plan(text, { imports: '' }, false, 't150', never, 60_000);
  const inline = planStart(text, { imports: '' }, false, 't150');
  t.same(off, inline, 'the same plan');
  t.equal(off.header, 'import Lean');
  t.same(off.origin, { line: 3, column: 0 }, 'the body starts on line 3');
  t.ok(off.text.endsWith('theorem t150 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by sorry'), 'cut after the theorem');
  const sorries = [
    { proofState: 0, pos: { line: 1, column: 3 }, goal: 'g' },
    { proofState: 1, pos: off.sorryAt!, goal: 'g' },
  ];
  t.same(pickSorries(off, sorries), [1], "only the theorem's sorry is a state");
  t.same(pickSorries({ ...off, sorryAt: undefined }, sorries), [0, 1], 'without a theorem, every sorry with a state');
});

t.test("the worker's errors keep their code", async (t) => {
  const pool = new PlanPool(1_000);
  t.teardown(() => pool.destroy());
  const err = await pool.plan(content(200), { imports: '' }, true, 'nope', never, 60_000).catch((e: unknown) => e);
  t.ok(isServiceError(err) && err.code === 'invalid_request', 'a theorem the content does not declare');
  t.match((err as Error).message, /nope/);
});

t.test("the start's deadline stops the worker; the pool serves again after", async (t) => {
  const pool = new PlanPool(1_000);
  t.teardown(() => pool.destroy());
  const err = await pool.plan(content(5_000), { imports: '' }, true, 't4999', never, 1).catch((e: unknown) => e);
  t.ok(isServiceError(err) && err.code === 'timeout', 'a timeout error');
  const ok = await pool.plan(content(200), { imports: '' }, true, 't3', never, 60_000);
  t.match(ok.text, /theorem t3 /);
});

t.test('without a theorem only the header is read (inline, whatever the size)', async (t) => {
  const pool = new PlanPool(10);
  t.teardown(() => pool.destroy());
  const p = await pool.plan(content(50), { imports: 'import Mathlib' }, true, undefined, never, 1);
  t.equal(p.header, 'import Mathlib', 'ignore_imports: the environment header');
  t.same(p.origin, { line: 3, column: 0 });
  t.equal(p.sorryAt, undefined);
});
