/**
 * verbosity against a real Lean toolchain: at level 2 have2lemma's lemma is printed with
 * implicit arguments (pp.explicit) and still elaborates. Skipped, with the reason, without Lean.
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
if (skip) t.comment(`SKIP printing integration tests: ${skip}`);

t.test('have2lemma at verbosity 0 and 2', { skip }, async (t) => {
  const app = await buildApp({ config: { ...config, lean: { ...config.lean, minWarm: 0 } }, logger: false });
  t.teardown(() => app.close());
  const content = 'theorem t (x : Nat) : x = x := by\n  have h : x + 0 = x := by simp\n  exact rfl\n';
  const call = async (verbosity: number) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/have2lemma',
        payload: { content, environment: ready!.env.name, verbosity, timeout_seconds: 600 },
      })
    ).json();
  const plain = await call(0);
  t.match(plain.content, /theorem t\.h \(x : (?:Nat|ℕ)\) :\s+x \+ 0 = x/);
  const explicit = await call(2);
  t.match(explicit.content, /@Eq/, 'implicit arguments printed');
  t.same(explicit.lean_messages.errors, [], 'the explicit statement elaborates again');
});
