import t from 'tap';
import { parseSource } from '../../src/syntax/source.ts';
import { normalizeSource } from '../../src/tools/normalize-source.ts';

t.test(
  'remove_sections: namespaces/sections/ends go, names and namespace-relative references are qualified',
  async (t) => {
    const src =
      'import Mathlib\n\nnamespace MyNamespace\nnoncomputable section MySection\n\ntheorem foo : 1 = 1 := rfl\n\ntheorem bar : 1 = 1 := foo\n\nend MySection\nend MyNamespace\n';
    const r = normalizeSource(src, ['remove_sections']);
    t.equal(
      r.output,
      'import Mathlib\n\nnoncomputable section\n\ntheorem MyNamespace.foo : 1 = 1 := rfl\n\ntheorem MyNamespace.bar : 1 = 1 := MyNamespace.foo\n\n',
    );
    t.same(r.stats, { remove_sections: 4 });
    const f = parseSource(r.output);
    t.same(f.commands.filter((c) => c.kind === 'namespace' || c.kind === 'end').length, 0);
    t.same(
      f.decls.map((d) => d.fullName),
      ['MyNamespace.foo', 'MyNamespace.bar'],
    );
  },
);

t.test('remove_sections keeps the `end` of a mutual block and qualifies opens of inner namespaces', async (t) => {
  const src =
    'namespace N\nnamespace Inner\ndef x := 1\nend Inner\nopen Inner\nmutual\ndef e : Nat → Bool\n  | 0 => true\n  | n+1 => o n\ndef o : Nat → Bool\n  | 0 => false\n  | n+1 => e n\nend\nend N\n';
  const r = normalizeSource(src, ['remove_sections']);
  t.match(r.output, /^open N\.Inner$/m);
  t.match(r.output, /^mutual\ndef N\.e/m);
  t.match(r.output, /N\.o n\n/);
  t.match(r.output, /^end\n/m, 'the mutual end stays');
  t.equal(parseSource(r.output).commands.filter((c) => c.kind === 'end').length, 1);
});

t.test('split_open_in_commands, remove_duplicates, comments', async (t) => {
  const src =
    'open Nat\nopen Nat\nopen List\nopen List in\ntheorem foo : succ 0 = 1 := rfl\n/-! mod -/\n/-- doc -/\ndef x := 1\n/-- info: 1 -/\n#guard_msgs in\n#eval x\n';
  const r = normalizeSource(src, [
    'split_open_in_commands',
    'remove_duplicates',
    'normalize_module_comments',
    'normalize_doc_comments',
  ]);
  t.equal(
    r.output,
    'open Nat\nopen List\ntheorem foo : succ 0 = 1 := rfl\n/- mod -/\n/- doc -/\ndef x := 1\n/-- info: 1 -/\n#guard_msgs in\n#eval x\n',
  );
  t.same(r.stats, {
    normalize_module_comments: 1,
    normalize_doc_comments: 1,
    split_open_in_commands: 1,
    remove_duplicates: 2,
  });
});

t.test('expand_decl_names: declarations and references via opens are fully qualified', async (t) => {
  const src = 'namespace N\ndef helper := 1\nend N\nopen N\ntheorem t : helper = 1 := rfl\n';
  const r = normalizeSource(src, ['expand_decl_names']);
  t.equal(r.output, 'namespace N\ndef _root_.N.helper := 1\nend N\nopen N\ntheorem t : N.helper = 1 := rfl\n');
  t.match(r.warnings.join(), /names from imports/);
});

t.test('remove_opens: open commands and `open … in` prefixes go (AXLE normalize.md example)', async (t) => {
  const src =
    'open Nat\ntheorem foo : Nat.succ 0 = 1 := rfl\n\nopen List in\ntheorem bar : List.isEmpty ([] : List Nat) = Bool.true := rfl\n';
  const r = normalizeSource(src, ['remove_opens', 'expand_decl_names', 'expand_scoped_notations']);
  t.equal(
    r.output,
    'theorem foo : Nat.succ 0 = 1 := rfl\n\ntheorem bar : List.isEmpty ([] : List Nat) = Bool.true := rfl\n',
  );
  t.same(r.stats, { remove_opens: 2 });
  t.notMatch(r.warnings.join('\n'), /combine it with/, 'no warning when both expansions are asked for');
  const alone = normalizeSource(src, ['remove_opens']);
  t.match(alone.warnings.join('\n'), /combine it with expand_decl_names and expand_scoped_notations/);
});

t.test('remove_opens: nested chains go; an open behind another `… in` is kept with a warning', async (t) => {
  const src =
    'open A in open B in\ntheorem x : True := trivial\nset_option pp.all true in open Nat\nset_option pp.all true in open Nat in\ntheorem y : True := trivial\n';
  const r = normalizeSource(src, ['remove_opens']);
  t.equal(
    r.output,
    'theorem x : True := trivial\nset_option pp.all true in open Nat\nset_option pp.all true in theorem y : True := trivial\n',
  );
  t.match(r.warnings.join('\n'), /the open at line 3 follows another `… in`; kept/);
  t.equal(
    normalizeSource('theorem z : True := trivial\n', ['remove_opens']).warnings.length,
    0,
    'nothing removed, no warning',
  );
});

t.test(
  'expand_scoped_notations: exact where no scoped notation can be in force; else left as written, saying where',
  async (t) => {
    // AXLE's own example (docs/tools/normalize.md): the notation is declared and used after `namespace`/`open`.
    const src = 'namespace MyNS\nscoped infix:65 " ⊹ " => HAdd.hAdd\nend MyNS\nopen MyNS\ndef x : Nat := (1 ⊹ 2) + 3\n';
    const r = normalizeSource(src, ['expand_scoped_notations']);
    t.equal(r.output, src);
    t.match(
      r.warnings.join('\n'),
      /expand_scoped_notations: not done: `namespace` on line 1 can bring scoped notations/,
    );
    // No `open` and no `namespace` anywhere: no scoped notation is active, so there is nothing to expand.
    const plain =
      '-- open Real\nsection\ntheorem t : 1 + 1 = 2 := by\n  norm_num [show "open" = "open" from rfl]\nend\n';
    const none = normalizeSource(plain, ['expand_scoped_notations']);
    t.equal(none.output, plain, 'nothing to expand');
    t.same(none.warnings, [], 'and nothing to warn about (`open` only in a comment and strings)');
    t.same(none.stats, {});
    // A term-level `open … in` activates scoped notations too; read before remove_opens drops the command.
    const term = 'theorem u : True := by\n  open Real in\n  trivial\n';
    t.match(normalizeSource(term, ['expand_scoped_notations']).warnings.join('\n'), /`open` on line 2/);
    const both = normalizeSource('open Nat\ntheorem v : True := trivial\n', [
      'remove_opens',
      'expand_scoped_notations',
    ]);
    t.match(both.warnings.join('\n'), /`open` on line 1/, 'the removed `open` still counts');
  },
);
