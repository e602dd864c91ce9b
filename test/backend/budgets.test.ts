/**
 * One request's heartbeat budgets (src/backend/heartbeats/budgets.ts): what each command is sent
 * as, and which outcomes are counted as cut short by the request's own deadline. The stop texts
 * are Lean's wording as max-heartbeats.ts cites it (as the fake REPL double writes them);
 * test/backend/stop-texts.test.ts holds their recognition against every recorded stop.
 */
import t from 'tap';
import { HeartbeatBudgets } from '../../src/backend/heartbeats/budgets.ts';
import { LEAN_DEFAULT_MAX_HEARTBEATS, sentBudget, WRAP_LINES } from '../../src/backend/heartbeats/max-heartbeats.ts';
import type { ReplMessage } from '../../src/backend/protocol/schema.ts';

const cmds = (...texts: string[]) => texts.map((text) => ({ text }));
const at = { line: 1, column: 0 };
const stop = (n: number): ReplMessage => ({
  severity: 'error',
  pos: at,
  data: `(deterministic) timeout at \`whnf\`, maximum number of heartbeats (${n}) has been reached`,
});

t.test(
  'prepare: a declaration gets what the time left buys; others, and the limit in scope, go as they are',
  async (t) => {
    const b = new HeartbeatBudgets(
      cmds('theorem a : True := trivial', 'open Nat', 'set_option maxHeartbeats 400 in theorem c : True := trivial'),
      Date.now() + 10_000,
      1000,
    );
    const p = b.prepare('theorem a : True := trivial', 0);
    t.equal(p?.lines, WRAP_LINES);
    const n = sentBudget(p!.text)!;
    t.ok(n > 5000 && n <= 10_000, `about ten seconds' worth: ${n}`);
    t.equal(b.prepare('open Nat', 1), undefined, 'not wrappable: sent as it is');
    const far = new HeartbeatBudgets(cmds('theorem a : True := trivial'), Date.now() + 1e9, 1000);
    t.equal(
      far.prepare('theorem a : True := trivial', 0),
      undefined,
      `time enough for the limit in scope (${LEAN_DEFAULT_MAX_HEARTBEATS}): as it is`,
    );
    t.ok(b.prepare('theorem other : True := trivial', 0), 'a text other than the one given is read afresh');
  },
);

t.test('remember: only an outcome stopped at the budget it was sent with is counted and forgotten', async (t) => {
  const b = new HeartbeatBudgets(cmds('theorem a : True := trivial'), Date.now() + 10_000, 1000);
  const sent = b.prepare('theorem a : True := trivial', 0)!.text;
  const n = sentBudget(sent)!;
  t.ok(b.remember([], sent), 'no message');
  t.ok(b.remember([{ severity: 'warning', pos: at, data: 'declaration uses sorry' }], sent), 'no error');
  t.ok(b.remember([{ severity: 'error', pos: at, data: 'type mismatch' }], sent), 'an error that is no stop');
  t.ok(b.remember([stop(n + 1)], sent), 'a stop at another budget (the file’s own)');
  t.ok(b.remember([stop(n)], 'theorem a : True := trivial'), 'sent without a budget');
  t.equal(b.stops, 0);
  t.notOk(b.remember([stop(n)], sent), 'stopped at its budget: never remembered');
  t.notOk(
    b.remember([{ severity: 'error', pos: at, data: '(kernel) deterministic timeout' }], sent),
    'the kernel’s stop',
  );
  t.equal(b.stops, 2, 'both counted');
});
