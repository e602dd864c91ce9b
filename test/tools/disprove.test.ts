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
    // The counter-example search: plausible finds none here (its success answer, recorded in
    // ../shared/recorded/plausible/v4.28.0/Test/Tactic.lean: the info, then the sorry warning).
    if (c.text.includes('plausible (config'))
      return {
        messages: [
          msg('info', c.origin, 'Unable to find a counter-example'),
          msg('warning', c.origin, 'declaration uses `sorry`'),
        ],
      };
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
  t.match(res.results['N.right'], /; plausible: Unable to find a counter-example\)$/);
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
  t.match(res.results['N.wrong'], /^Disprove: proof of the negation failed \(sorry: the proof uses sorry;/);
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

/**
 * A double that keeps Lean's scopes across the commands of a run, as the REPL does (a command continues
 * from the previous one's whole `Command.State`, scopes included [repl: REPL/Frontend.lean, `processInput`]):
 * `namespace A.B` enters one scope per component, `section [A.B]` likewise (one anonymous scope without a
 * name), and `end [A.B]` leaves one scope per component and must repeat their names [lean4
 * src/Lean/Elab/BuiltinCommand.lean, `addScopes`, `elabEnd`]. A theorem is declared under the current
 * namespace; `#print axioms _root_.X` answers only for a declared X. `decide` proves `¬ (1 = 2)`.
 */
function scopedLean() {
  const scopes: { kind: 'namespace' | 'section'; name: string }[] = [];
  const declared = new Set<string>();
  const ns = () =>
    scopes
      .filter((s) => s.kind === 'namespace')
      .map((s) => s.name)
      .join('.');
  const runner = scriptedRunner((c) => {
    const messages = [];
    for (const line of c.text.split('\n')) {
      const open = /^(namespace|section)(?: (\S+))?$/.exec(line);
      if (open) for (const name of (open[2] ?? '').split('.')) scopes.push({ kind: open[1] as 'namespace', name });
      const end = /^end(?: (\S+))?$/.exec(line);
      if (end) {
        const names = (end[1] ?? '').split('.').reverse();
        for (const name of names)
          if (scopes.pop()?.name !== name) messages.push(msg('error', c.origin, `invalid 'end' (${line})`));
      }
      const thm = /^theorem (\S+) : (.*) := by$/.exec(line);
      if (thm && !(thm[2] === '¬ (1 = 2)' && c.text.includes('  decide\n')))
        messages.push(msg('error', c.origin, 'decide failed'));
      else if (thm) declared.add(ns() ? `${ns()}.${thm[1]}` : thm[1]!);
      const ask = /#print axioms _root_\.(\S+)$/.exec(line)?.[1];
      if (ask)
        messages.push(
          declared.has(ask)
            ? msg('info', c.origin, `'${ask}' does not depend on any axioms`)
            : msg('error', c.origin, `unknown constant '${ask}'`),
        );
    }
    return { messages };
  });
  return { runner, scopes };
}

// Content that leaves scopes open: the probes run at the top level (one command leaves the scopes first), so each
// lemma gets the full name it asks about.
const openEnds: [string, string, string][] = [
  ['ends inside its namespace', 'namespace Foo\ntheorem wrong : 1 = 2 := sorry\n', 'Foo.wrong'],
  ['ends inside a nested namespace', 'namespace A.B\ntheorem wrong : 1 = 2 := sorry\n', 'A.B.wrong'],
  [
    'ends inside sections in namespaces',
    'namespace A\nsection S\nnamespace B\nsection\ntheorem wrong : 1 = 2 := sorry\n',
    'A.B.wrong',
  ],
  ['ends inside another namespace', 'namespace A\ntheorem wrong : 1 = 2 := sorry\nend A\nnamespace B\n', 'A.wrong'],
];
for (const [what, content, full] of openEnds)
  t.test(`content that ${what}: the theorem is disproved`, async (t) => {
    const { runner, scopes } = scopedLean();
    const res = await disprove.run(
      parseToolRequest('disprove', { content, environment: 'x', terminal_tactics: ['grind', 'decide'] }),
      toolCtx(runner),
    );
    t.same(res.disproved_theorems, [full]);
    t.equal(res.results[full], 'Disprove: the negation was proved with `decide`');
    t.same(res.tool_messages.errors, [], 'every `end` matched a scope Lean had open');
    t.same(scopes, [], 'each probe closed what it opened, at the top level');
  });
