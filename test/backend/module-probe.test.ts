/**
 * The module probe (src/backend/session/module-probe.ts): the command asking Lean whether a module is
 * loaded, and how its answer is read. Only `true` or `false` in one info is an answer; everything else
 * is unknown, which a caller takes as "not loaded" (a wrong "loaded" would serve a request on an
 * environment missing its imports).
 */
import t from 'tap';
import { moduleProbe, readModuleProbe } from '../../src/backend/session/module-probe.ts';

const info = (data: string) => ({ severity: 'info', data });

t.test('the question names the module as a name literal', async (t) => {
  t.equal(moduleProbe('Qq'), '#eval show Lean.CoreM Bool from do return ((← Lean.getEnv).getModuleIdx? `Qq).isSome');
  t.match(moduleProbe('Mathlib.Tactic.Common'), /getModuleIdx\? `Mathlib\.Tactic\.Common\)/);
  t.match(moduleProbe('«my module».Part'), /getModuleIdx\? `«my module»\.Part\)/);
  t.match(moduleProbe('Foo₁.ℕat'), /`Foo₁\.ℕat\)/, 'subscripts and letter-like characters');
  for (const bad of ['', 'a b', 'a..b', '.a', 'a.', '`a', 'a)', '«open', '1a', 'a.«b\nc»'])
    t.equal(moduleProbe(bad), undefined, bad);
});

t.test('only one info saying true or false is an answer', async (t) => {
  t.equal(readModuleProbe([info('true')]), true);
  t.equal(readModuleProbe([info('false\n')]), false);
  t.equal(readModuleProbe([]), undefined, 'no message (a REPL that knows no Lean)');
  t.equal(readModuleProbe([{ severity: 'error', data: 'true' }]), undefined, 'an error is no answer');
  t.equal(readModuleProbe([info('true'), info('true')]), undefined, 'two messages');
  for (const other of ['True', 'some 3', '1', '']) t.equal(readModuleProbe([info(other)]), undefined, other);
});
