/**
 * The readers in lean-texts.ts, pinned where the first mutation run
 * (bench/results/mutation-2026-11-27T10-51-46-648Z.json) found them unguarded: version numbers
 * of more than one digit, anchored texts, names of more than one character.
 */
import t from 'tap';
import {
  NO_GOALS_RE,
  UNSOLVED_GOALS_RE,
  atLeast,
  parseAxioms,
  printAxiomsCommand,
  toolchainVersion,
  unusedVariableName,
  userConstName,
} from '../../src/tools/lean-texts.ts';

const lean = (v: string) => `leanprover/lean4:${v}`;

t.test('toolchainVersion reads every number in full, and answers undefined for an unreadable toolchain', async (t) => {
  t.same(toolchainVersion(lean('v10.0.0')), [10, 0, 0, Infinity]);
  t.same(toolchainVersion(lean('v4.28.12')), [4, 28, 12, Infinity]);
  t.same(toolchainVersion(lean('v4.31.0-rc12')), [4, 31, 0, 12]);
  t.equal(toolchainVersion('leanprover/lean4:nightly'), undefined);
  t.equal(atLeast('leanprover/lean4:nightly', [4, 0, 0, Infinity]), undefined);
  // A release is later than its release candidates.
  t.equal(atLeast(lean('v4.31.0'), [4, 31, 0, 1]), true);
  t.equal(atLeast(lean('v4.31.0-rc1'), [4, 31, 0, Infinity]), false);
});

t.test('the unused-variable warning: a name of several characters, and only at the start of the text', async (t) => {
  // [lean4 v4.28.0: src/Lean/Linter/UnusedVariables.lean, m!"unused variable `{userName}`"]; from
  // v4.31.0-rc1 "Variable name `y` is not explicitly referenced." (REPL test/variables.expected.out).
  const note = '\n\nNote: This linter can be disabled with `set_option linter.unusedVariables false`';
  t.equal(unusedVariableName(`unused variable \`hxy\`${note}`, lean('v4.28.0')), 'hxy');
  t.equal(unusedVariableName(`Variable name \`hxy\` is not explicitly referenced.${note}`, lean('v4.31.0')), 'hxy');
  // Another message that quotes the text is not the linter's warning.
  t.equal(unusedVariableName('declaration uses sorry; unused variable `h`', lean('v4.28.0')), undefined);
  t.equal(unusedVariableName('see: Variable name `h` is not explicitly referenced.', lean('v4.31.0')), undefined);
});

t.test('#print axioms: only a text that begins with the answer is read, with every axiom named', async (t) => {
  // [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`]
  t.same(parseAxioms("'x' depends on axioms: [propext,\n Classical.choice]"), {
    name: 'x',
    axioms: ['propext', 'Classical.choice'],
  });
  t.same(parseAxioms("'x' does not depend on any axioms"), { name: 'x', axioms: [] });
  t.equal(parseAxioms("note: 'x' does not depend on any axioms"), undefined);
  t.equal(parseAxioms('x depends on nothing'), undefined);
});

t.test('userConstName strips only a leading private prefix, over the whole name', async (t) => {
  // [lean4 v4.28.0: src/Lean/PrivateName.lean, `mkPrivateNameCore`: `_private.<module>.0.<name>`]
  t.equal(userConstName('_private.Foo.Bar.0.A.x'), 'A.x');
  t.equal(userConstName('_private.0.x'), 'x');
  t.equal(userConstName('A._private.0.x'), 'A._private.0.x');
  t.equal(userConstName('_private.0.x\ny'), '_private.0.x\ny');
});

t.test('printAxiomsCommand adds _root_ once', async (t) => {
  t.equal(printAxiomsCommand('A.x'), 'set_option pp.fullNames true in #print axioms _root_.A.x');
  t.equal(printAxiomsCommand('_root_.A.x'), 'set_option pp.fullNames true in #print axioms _root_.A.x');
});

t.test('unsolved goals / no goals are read at the start of an error only', async (t) => {
  // [lean4 v4.28.0: src/Lean/Elab/Term.lean, m!"unsolved goals\n…"; src/Lean/Elab/Tactic/Basic.lean, `throwNoGoalsToBeProved`]
  t.ok(UNSOLVED_GOALS_RE.test('unsolved goals\n⊢ True'));
  t.notOk(UNSOLVED_GOALS_RE.test('linarith failed: unsolved goals'));
  t.ok(NO_GOALS_RE.test('no goals to be proved'));
  t.notOk(NO_GOALS_RE.test('simp made no progress; no goals'));
});
