/**
 * The integration harness on any machine: loading it and building its daemon must not
 * recurse (the old `leanApp` called itself forever, so every integration test but one
 * overflowed the stack on a machine with Lean), and without a toolchain it says why it skips.
 */
import t from 'tap';
import { chooseEnvironment, config, leanApp, skipReasons } from './harness.ts';

t.test('leanApp builds a daemon on the configured environments (no recursion)', async (t) => {
  const app = await leanApp(t);
  const res = await app.inject({ method: 'GET', url: '/v1/environments' });
  t.equal(res.statusCode, 200);
  t.match(res.body, new RegExp(config.environments[0]!.name));
});

t.test('chooseEnvironment prefers a core-only environment and explains a skip', async (t) => {
  const envs = config.environments.map((e, i) => ({ ...e, name: `e${i}`, imports: i === 0 ? 'import Mathlib' : '' }));
  if (envs.length < 2) envs.push({ ...envs[0]!, name: 'core', imports: '' });
  const all = chooseEnvironment(envs, () => ({ available: true }));
  t.equal(all.skip, false);
  t.equal(all.env?.imports, '');
  const none = chooseEnvironment(envs, (e) => ({ available: false, reason: `missing ${e.name}` }));
  t.equal(none.env, undefined);
  t.match(none.skip, /^no Lean toolchain here: e0: missing e0/);
});

t.test('a skip names the first reason in full and the other environments by name', async (t) => {
  t.equal(skipReasons([]), '');
  t.equal(skipReasons([{ name: 'a', reason: 'no toolchain' }]), 'a: no toolchain');
  t.equal(
    skipReasons([
      { name: 'a', reason: 'no toolchain' },
      { name: 'b', reason: 'no toolchain (b)' },
      { name: 'c', reason: 'no toolchain (c)' },
    ]),
    'a: no toolchain; also unavailable: b, c',
  );
});
