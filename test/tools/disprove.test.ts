/** disprove with a scripted runner double: `decide` proves `¬ (1 = 2)`; everything else fails. */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { disprove } from '../../src/tools/disprove.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const lean = () => scriptedRunner((c) => {
  if (!c.text.includes('example : ¬')) return {};
  return c.text.includes('¬ (1 = 2)') && c.text.includes('  decide') ? {} : { messages: [msg('error', c.origin, 'grind failed\n⊢ False')] };
});
const content = 'namespace N\ntheorem wrong : 1 = 2 := sorry\ntheorem right (n : Nat) : n = n := rfl\nend N\n';

t.test('negations are tried with each terminal tactic in order; the first success disproves', async (t) => {
  const r = lean();
  const res = await disprove.run(parseToolRequest('disprove', { content, environment: 'x', terminal_tactics: ['grind', 'decide'] }), toolCtx(r));
  t.same(res.disproved_theorems, ['N.wrong']);
  t.same(res.negated, { 'N.wrong': '¬ (1 = 2)', 'N.right': '¬ (∀ (n : Nat), n = n)' });
  t.equal(res.results['N.wrong'], 'Disprove: the negation was proved with `decide`');
  t.match(res.results['N.right'], /^Disprove: proof of the negation failed \(grind: grind failed/);
  const probe = r.jobs[0]!.commands.find((c) => c.text.includes('¬ (1 = 2)') && c.text.includes('decide'))!.text;
  t.equal(probe, 'namespace N\nexample : ¬ (1 = 2) := by\n  decide\nend N', 'run in the theorem’s namespace');
});

t.test('selection applies', async (t) => {
  const res = await disprove.run(parseToolRequest('disprove', { content, environment: 'x', names: ['right'] }), toolCtx(lean()));
  t.same(Object.keys(res.results), ['N.right']);
  t.same(res.disproved_theorems, []);
});
