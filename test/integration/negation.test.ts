/**
 * verify_negation against a real Lean toolchain: a disproof of a find-the-answer statement is
 * accepted, a bogus one (sorry) rejected. Skipped, with the reason printed, without a toolchain.
 */
import t from 'tap';
import { callTool, chooseEnvironment, config, leanApp } from './harness.ts';

const { env: ready, skip } = chooseEnvironment(config.environments);
if (skip) t.comment(`SKIP verify_negation integration tests: ${skip}`);

const statement = 'def answer : Nat := sorry\n\ntheorem main : answer + answer = 3 := sorry\n';

t.test('a disproof is accepted, a bogus one rejected', { skip }, async (t) => {
  const app = await leanApp(t);
  const call = (content: string) =>
    callTool(app, ready, 'verify_proof', { formal_statement: statement, content, verify_negation: true });
  const good = await call('theorem main : ∀ (answer : Nat), ¬ (answer + answer = 3) := by\n  intro a h\n  omega\n');
  t.equal(good.negation.okay, true, JSON.stringify(good.negation));
  t.same(good.negation.failed_declarations, []);
  t.equal(good.okay, false, 'it is not a proof of the statement itself');
  const bogus = await call('theorem main : ∀ (answer : Nat), ¬ (answer + answer = 3) := by\n  intro a h\n  sorry\n');
  t.equal(bogus.negation.okay, false);
  t.same(bogus.negation.failed_declarations, ['main']);
  const wrong = await call('theorem main : ∀ (answer : Nat), ¬ (answer + answer = 5) := by\n  intro a h\n  omega\n');
  t.equal(wrong.negation.okay, false, 'a disproof of another statement');
});
