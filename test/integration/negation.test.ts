/**
 * verify_negation against a real Lean toolchain: a disproof of a find-the-answer statement is
 * accepted, a bogus one (sorry) rejected. Skipped, with the reason printed, without a toolchain.
 */
import t from 'tap';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { probeEnvironment } from '../../src/envs/probe.ts';

const config = loadConfig(process.env);
const probes = config.environments.map((e) => ({
  env: e,
  a: probeEnvironment(e, process.env, undefined, e.sandbox ?? config.lean.sandbox),
}));
const ready = probes
  .filter((p) => p.a.available)
  .sort((x, y) => Number(x.env.imports !== '') - Number(y.env.imports !== ''))[0];
const skip = ready
  ? false
  : `no Lean toolchain here: ${probes.map((p) => `${p.env.name}: ${p.a.available ? 'available' : p.a.reason}`).join('; ')}`;
if (skip) t.comment(`SKIP verify_negation integration tests: ${skip}`);

const statement = 'def answer : Nat := sorry\n\ntheorem main : answer + answer = 3 := sorry\n';

t.test('a disproof is accepted, a bogus one rejected', { skip }, async (t) => {
  const app = await buildApp({ config: { ...config, lean: { ...config.lean, minWarm: 0 } }, logger: false });
  t.teardown(() => app.close());
  const call = async (content: string) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/verify_proof',
        payload: {
          formal_statement: statement,
          content,
          environment: ready!.env.name,
          verify_negation: true,
          timeout_seconds: 600,
        },
      })
    ).json();
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
