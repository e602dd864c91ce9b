/**
 * verbosity against a real Lean toolchain: at level 2 have2lemma's lemma is printed with
 * implicit arguments (pp.explicit) and still elaborates. Skipped, with the reason, without Lean.
 */
import t from 'tap';
import { callTool, chooseEnvironment, config, leanApp } from './harness.ts';

const { env: ready, skip } = chooseEnvironment(config.environments);
if (skip) t.comment(`SKIP printing integration tests: ${skip}`);

t.test('have2lemma at verbosity 0 and 2', { skip }, async (t) => {
  const app = await leanApp(t);
  const content = 'theorem t (x : Nat) : x = x := by\n  have h : x + 0 = x := by simp\n  exact rfl\n';
  const call = (verbosity: number) => callTool(app, ready, 'have2lemma', { content, verbosity });
  const plain = await call(0);
  t.match(plain.content, /theorem t\.h \(x : (?:Nat|ℕ)\) :\s+x \+ 0 = x/);
  const explicit = await call(2);
  t.match(explicit.content, /@Eq/, 'implicit arguments printed');
  t.same(explicit.lean_messages.errors, [], 'the explicit statement elaborates again');
});
