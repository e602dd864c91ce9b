/**
 * disprove with a scripted runner double: `decide` proves `¬ (1 = 2)`; `sorry` "proves" anything with a
 * warning and `sorryAx` (what Lean answers: a warning, not an error); everything else fails. The
 * `#print axioms` answers have the shape of printAxiomsOf [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`].
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { disprove } from '../../src/tools/disprove.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const lean = () =>
  scriptedRunner((c) => {
    const name = /theorem (axle_disprove_\d+) : ¬/.exec(c.text)?.[1];
    if (!name) return {};
    const full = c.text.startsWith('namespace N') ? `N.${name}` : name;
    if (c.text.includes('  sorry\n'))
      return {
        messages: [
          msg('warning', c.origin, 'declaration uses `sorry`'),
          msg('info', c.origin, `'${full}' depends on axioms: [sorryAx]`),
        ],
      };
    return c.text.includes('¬ (1 = 2)') && c.text.includes('  decide')
      ? { messages: [msg('info', c.origin, `'${full}' does not depend on any axioms`)] }
      : { messages: [msg('error', c.origin, 'grind failed\n⊢ False')] };
  });
const content = 'namespace N\ntheorem wrong : 1 = 2 := sorry\ntheorem right (n : Nat) : n = n := rfl\nend N\n';

t.test('negations are tried with each terminal tactic in order; the first success disproves', async (t) => {
  const r = lean();
  const res = await disprove.run(
    parseToolRequest('disprove', { content, environment: 'x', terminal_tactics: ['grind', 'decide'] }),
    toolCtx(r),
  );
  t.same(res.disproved_theorems, ['N.wrong']);
  t.same(res.negated, { 'N.wrong': '¬ (1 = 2)', 'N.right': '¬ (∀ (n : Nat), n = n)' });
  t.equal(res.results['N.wrong'], 'Disprove: the negation was proved with `decide`');
  t.match(res.results['N.right'], /^Disprove: proof of the negation failed \(grind: grind failed/);
  const probe = r.jobs[0]!.commands.find((c) => c.text.includes('¬ (1 = 2)') && c.text.includes('decide'))!.text;
  t.equal(
    probe,
    'namespace N\ntheorem axle_disprove_1 : ¬ (1 = 2) := by\n  decide\nset_option pp.fullNames true in #print axioms _root_.N.axle_disprove_1\nend N',
    'run in the theorem’s namespace, a named theorem whose axioms are asked',
  );
});

t.test('defect 11: a negation "proved" through sorry disproves nothing', async (t) => {
  const res = await disprove.run(
    parseToolRequest('disprove', { content, environment: 'x', terminal_tactics: ['sorry'] }),
    toolCtx(lean()),
  );
  t.same(res.disproved_theorems, []);
  t.match(res.results['N.wrong'], /^Disprove: proof of the negation failed \(sorry: the proof uses sorry\)/);
});

t.test('selection applies', async (t) => {
  const res = await disprove.run(
    parseToolRequest('disprove', { content, environment: 'x', names: ['right'] }),
    toolCtx(lean()),
  );
  t.same(Object.keys(res.results), ['N.right']);
  t.same(res.disproved_theorems, []);
});

// Issue 27, defect 13: section variables are binders of the theorem's statement; the probe negates the
// elaborated type so that they stay inside the negation, and the variable commands are not replayed.
t.test('under section variables the probe negates the elaborated statement', async (t) => {
  const r = lean();
  const src = 'section\nvariable (n : Nat)\ntheorem pos : 0 < n := sorry\nend\n';
  await disprove.run(
    parseToolRequest('disprove', { content: src, environment: 'x', terminal_tactics: ['omega'] }),
    toolCtx(r),
  );
  const probe = r.jobs[0]!.commands.find((c) => c.text.includes('axle_disprove_0 :'))!.text;
  t.match(probe, /^section\ntheorem axle_disprove_0 : ¬ \(type_of% @_root_\.pos\) := by\n  omega\n/);
  t.notMatch(probe, /variable/, 'no variable in scope of the probe: nothing is bound outside the negation');
});
