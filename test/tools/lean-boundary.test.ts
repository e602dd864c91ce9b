/**
 * The tools' reading of what Lean prints, with shapes taken from Lean's and the REPL's
 * source (cited at each test): wrapped goal hypotheses (defect 4), anonymous instance
 * hypotheses (5), the unused-variable text per version (7), `#lint` findings (10), private
 * names in `#print axioms` and the sorry of a declaration with errors (13), names written with
 * unneeded guillemets.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { LeanMessage } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { check } from '../../src/tools/check.ts';
import { lemmaFromGoal, parseGoals } from '../../src/tools/goals.ts';
import { atLeast, parseAxioms, unusedVariableName } from '../../src/tools/lean-texts.ts';
import { simplify_theorems } from '../../src/tools/simplify-theorems.ts';
import { verify_proof } from '../../src/tools/verify-proof.ts';
import { nameIdentity, printedName } from '../../src/syntax/source.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';

const envAt = (v: string, imports = '') =>
  environmentConfig.parse({ name: 'x', lean_toolchain: `leanprover/lean4:${v}`, imports, project_dir: '/tmp' });

t.test(
  'defect 4: a hypothesis whose type wrapped onto the next line (PPGoal: ids ++ " :" ++ nest 2 (line ++ type))',
  async (t) => {
    // The group breaks at its `line`: `hlong :` then the type indented by 2
    // [lean4 v4.28.0: src/Lean/Meta/PPGoal.lean, `ppGoal`/`pushPending`].
    const text =
      'xs : List Nat\nhlong :\n  xs.length + xs.length + xs.length + xs.length + xs.length + xs.length + xs.length +\n      xs.length =\n    0\n⊢ xs = xs';
    const [g] = parseGoals(text);
    t.same(
      g!.hyps.map((h) => h.names),
      [['xs'], ['hlong']],
    );
    const lemma = lemmaFromGoal('t.sorried', g!, true);
    t.notMatch(lemma.text, /\(hlong : :/, 'no binder with an empty type');
    t.match(lemma.text, /\(hlong : xs\.length \+ xs\.length[^)]*=\s+0\)/s);
    t.same(lemma.args, ['xs', 'hlong']);
    // A let-bound variable whose value wrapped: `x : T :=` then nest 2 (line ++ value).
    const [l] = parseGoals('n : Nat\nm : Nat :=\n  n + n + n\n⊢ m = m');
    t.same(l!.hyps[1], { names: ['m'], type: 'Nat', value: '\n  n + n + n' });
  },
);

t.test(
  'defect 5: an anonymous instance hypothesis is an instance binder and does not block the call site',
  async (t) => {
    // `[Inhabited α]` prints as `inst✝ : Inhabited α` (sanitizeNames)
    // [lean4 v4.28.0: src/Lean/Meta/PPGoal.lean, `ppGoal`].
    const [g] = parseGoals('α : Type\ninst✝ : Inhabited α\nxs : List α\n⊢ xs = xs');
    const lemma = lemmaFromGoal('t.sorried', g!, true);
    t.match(lemma.text, /theorem t\.sorried \(α : Type\) \[Inhabited α\] \(xs : List α\) :/);
    t.equal(lemma.inaccessible, false, 'the call site can be rebuilt');
    t.same(lemma.args, ['α', 'xs']);
    // A user's hypothesis named `inst` is explicit; an inaccessible explicit one still blocks.
    const [u] = parseGoals('inst : Nat\nx✝ : Nat\n⊢ inst = x✝');
    const ul = lemmaFromGoal('u', u!, true);
    t.match(ul.text, /\(inst : Nat\) \(x_1 : Nat\)/);
    t.equal(ul.inaccessible, true);
  },
);

t.test('defect 7: the unused-variable text of each version', async (t) => {
  // repl test/variables.expected.out: the old text at REPL v4.30.0, the new one from v4.31.0-rc1.
  const oldText =
    'unused variable `y`\n\nNote: This linter can be disabled with `set_option linter.unusedVariables false`';
  const newText =
    'Variable name `y` is not explicitly referenced.\n\nThe binding can be removed (if unused) or named `_` (if used implicitly).\n\nNote: This linter can be disabled with `set_option linter.unusedVariables false`';
  t.equal(unusedVariableName(oldText, 'leanprover/lean4:v4.30.0'), 'y');
  t.equal(unusedVariableName(newText, 'leanprover/lean4:v4.30.0'), undefined);
  t.equal(unusedVariableName(newText, 'leanprover/lean4:v4.31.0-rc1'), 'y');
  t.equal(unusedVariableName(newText, 'leanprover/lean4:v4.33.0-rc2'), 'y');
  t.equal(unusedVariableName(oldText, 'leanprover/lean4:v4.33.0-rc2'), undefined);
  t.equal(unusedVariableName(newText, 'leanprover/lean4:nightly'), 'y', 'an unreadable version accepts both');
  t.same(
    [
      atLeast('leanprover/lean4:v4.31.0', [4, 31, 0, 1]),
      atLeast('leanprover/lean4:v4.31.0-rc1', [4, 31, 0, 1]),
      atLeast('leanprover/lean4:v4.30.0', [4, 31, 0, 1]),
    ],
    [true, true, false],
  );

  // rename_unused_vars on a v4.31 environment: the binder becomes `_`.
  const lean = scriptedRunner((c) => {
    const m: LeanMessage[] = [];
    const y = c.text.indexOf('(y : Nat)');
    if (c.text.startsWith('theorem') && y >= 0)
      m.push(msg('warning', { line: c.origin.line, column: c.origin.column + y + 1 }, newText));
    return { messages: m };
  });
  const r = await simplify_theorems.run(
    parseToolRequest('simplify_theorems', {
      content: 'theorem t (x : Nat) (y : Nat) : x = x := rfl\n',
      environment: 'x',
      simplifications: ['rename_unused_vars'],
    }),
    toolCtx(lean, envAt('v4.31.0')),
  );
  t.equal(r.content, 'theorem t (x : Nat) (_ : Nat) : x = x := rfl\n');
  t.equal(r.simplification_stats.rename_unused_vars, 1);
});

t.test('defect 10: #lint findings are warnings, and a pass adds nothing', async (t) => {
  // Batteries' #lint: `logError fmtResults` when a linter fails, else `logInfoAt tk m!"{…}\n-- All linting checks passed!"`
  // [batteries v4.28.0: Batteries/Tactic/Lint/Frontend.lean, `elab "#lint"`].
  const respond = (fail: boolean) =>
    scriptedRunner((c) =>
      c.text === '#lint'
        ? {
            messages: [
              fail
                ? msg(
                    'error',
                    c.origin,
                    '-- Found 1 error in 1 declarations (plus 0 automatically generated ones) in the current file with 16 linters\n\n/- The `docBlame` linter reports:\nDEFINITIONS ARE MISSING DOCUMENTATION STRINGS: -/\n#check @a /- definition missing documentation string -/\n',
                  )
                : msg(
                    'info',
                    c.origin,
                    '-- Found 0 errors in 1 declarations (plus 0 automatically generated ones) in the current file with 16 linters\n\n-- All linting checks passed!',
                  ),
            ],
          }
        : {},
    );
  const req = parseToolRequest('check', { content: 'def a : Nat := 1\n', environment: 'x', mathlib_options: true });
  const failed = await check.run(req, toolCtx(respond(true), envAt('v4.28.0', 'import Mathlib')));
  t.equal(failed.okay, true, 'a lint finding does not make the content fail');
  t.same(failed.lean_messages.errors, []);
  t.match(failed.lean_messages.warnings.join('\n'), /docBlame/);
  const passed = await check.run(req, toolCtx(respond(false), envAt('v4.28.0', 'import Mathlib')));
  t.same(passed.lean_messages.infos, [], 'no success info');
});

t.test('defect 13: private names in #print axioms, and the sorry of a declaration with errors', async (t) => {
  // printAxiomsOf: m!"'{constName}' depends on axioms: …" with the private name
  // [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`].
  t.same(parseAxioms("'_private.0.secret' depends on axioms: [myAxiom]"), { name: 'secret', axioms: ['myAxiom'] });
  t.same(parseAxioms("'_private.Foo.Bar.0.N.secret' depends on axioms: [propext,\n Classical.choice,\n Quot.sound]"), {
    name: 'N.secret',
    axioms: ['propext', 'Classical.choice', 'Quot.sound'],
  });
  t.same(parseAxioms("'plain' does not depend on any axioms"), { name: 'plain', axioms: [] });

  const lean = scriptedRunner((c) => {
    const ax = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/.exec(c.text);
    if (ax?.[1] === 'secret')
      return { messages: [msg('info', c.origin, "'_private.0.secret' depends on axioms: [myAxiom]")] };
    if (ax?.[1] === 'broken') return { messages: [msg('info', c.origin, "'broken' depends on axioms: [sorryAx]")] };
    if (ax) return { messages: [msg('info', c.origin, `'${ax[1]}' does not depend on any axioms`)] };
    if (c.text.includes('ERR')) return { messages: [msg('error', c.origin, 'Unknown identifier `ERR`')] };
    return {};
  });
  const r = await check.run(
    parseToolRequest('check', {
      content: 'private theorem secret : True := trivial\n\ntheorem broken : True := ERR\n',
      environment: 'x',
    }),
    toolCtx(lean),
  );
  t.same([...r.failed_declarations].sort(), ['broken', 'secret']);
  t.match(r.tool_messages.warnings.join('\n'), /In 'secret': axiom 'myAxiom'/);
  t.notMatch(r.tool_messages.warnings.join('\n'), /'broken' uses 'sorry'/, 'the error is reported, not a sorry');
});

t.test('defect 3: `mutual … end` and `<cmd> in <cmd>` reach Lean as one input each', async (t) => {
  // Lean parses `mutual` up to `end` as one command and `attribute … in` + command as one
  // [lean4 v4.28.0: src/Lean/Parser/Command.lean, «mutual» and the `in` trailing parser].
  const content =
    'mutual\ntheorem ev : True := trivial\ntheorem od : True := ERR\nend\n\nattribute [local simp] Nat.add_comm in\ntheorem c (a b : Nat) : a + b = b + a := by simp\n';
  const lean = scriptedRunner((c) => {
    const ax = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/.exec(c.text);
    if (ax) return { messages: [msg('info', c.origin, `'${ax[1]}' does not depend on any axioms`)] };
    const line = c.text.split('\n').findIndex((l) => l.includes('ERR'));
    // The error at its line inside the input, as the REPL reports positions relative to the input.
    return line >= 0
      ? { messages: [msg('error', { line: c.origin.line + line, column: 0 }, 'Unknown identifier `ERR`')] }
      : {};
  });
  const r = await check.run(parseToolRequest('check', { content, environment: 'x' }), toolCtx(lean));
  const sent = lean.jobs[0]!.commands.map((c) => c.text).filter((x) => !x.includes('#print axioms'));
  t.same(sent, [
    'mutual\ntheorem ev : True := trivial\ntheorem od : True := ERR\nend',
    'attribute [local simp] Nat.add_comm in\ntheorem c (a b : Nat) : a + b = b + a := by simp',
  ]);
  t.same(r.failed_declarations, ['od'], 'the error is filed under the declaration whose lines hold it');
});

t.test('a name written with unneeded guillemets is the name Lean prints without them', async (t) => {
  // Lean escapes a component only when it is no identifier [lean4 src/Init/Meta.lean, `Name.escapePart`]:
  // `theorem «foo»` declares `foo`, and `#print axioms` / `#check` print `foo`.
  const asLeanPrints = (n: string) => printedName(n.replace(/^_root_\./, ''));
  const lean = scriptedRunner((c) => {
    const ax = /^set_option pp\.fullNames true in #print axioms (.+)$/.exec(c.text);
    if (ax) return { messages: [msg('info', c.origin, `'${asLeanPrints(ax[1]!)}' does not depend on any axioms`)] };
    const ch = /#check @(.+)$/.exec(c.text);
    if (ch) return { messages: [msg('info', c.origin, `${asLeanPrints(ch[1]!)} : True`)] };
    return {};
  });
  const content = 'theorem «foo» : True := trivial\n\ntheorem «a.b».«c» : True := trivial\n';
  const r = await check.run(parseToolRequest('check', { content, environment: 'x' }), toolCtx(lean));
  t.equal(r.okay, true);
  t.same(r.failed_declarations, [], 'both axioms answers are matched');
  t.same(r.tool_messages.warnings, []);

  const v = await verify_proof.run(
    parseToolRequest('verify_proof', {
      formal_statement: 'theorem «foo» : True := sorry\n',
      content: 'theorem «foo» : True := trivial\n',
      environment: 'x',
    }),
    toolCtx(lean),
  );
  t.equal(v.okay, true, 'the candidate identical up to its proof passes');
  t.same(v.tool_messages.errors, []);

  t.equal(nameIdentity('«foo».bar'), nameIdentity('foo.«bar»'));
  t.not(nameIdentity('«a.b»'), nameIdentity('a.b'), 'a dotted component is not a dotted name');
  t.equal(printedName('«a.b».«c»'), '«a.b».c');
  t.equal(printedName('«1x»'), '«1x»', 'a component no identifier keeps its escape');
});

const forkDir = 'recorded/repl-forks/augustepoiroux/v4.28.0/test';
t.test(
  'a let-bound hypothesis keeps its value in the lifted lemma (recorded goals)',
  { skip: sharedSkip(forkDir) },
  async (t) => {
    const dir = forkDir;
    // The REPL fork's transcript: the goal after `let p : ∃ x : Nat, x > 0 := ⟨1, Nat.one_pos⟩; let ⟨n, hn⟩ := p`.
    const answers = readFileSync(path.join(sharedPath(dir)!, 'auxiliary_decl.expected.out'), 'utf8')
      .split(/\n\s*\n/)
      .filter((x) => x.trim())
      .map((x) => JSON.parse(x) as { goals?: string[] });
    const text = answers.find((a) => a.goals?.some((g) => g.includes('hn : n > 0')))!.goals![0]!;
    const [g] = parseGoals(text);
    t.same(g!.hyps[0], { names: ['p'], type: '∃ x, x > 0', value: 'Exists.intro 1 Nat.one_pos' });
    const lemma = lemmaFromGoal('t.sorried', g!, true);
    t.equal(
      lemma.text,
      'theorem t.sorried :\n    let p : ∃ x, x > 0 := Exists.intro 1 Nat.one_pos\n    ∀ (n : Nat),\n    ∀ (hn : n > 0),\n    true = true := by\n  intro p n hn\n  sorry',
    );
    t.same(lemma.args, ['n', 'hn'], 'the let-bound variable is no argument');
  },
);

t.test('a let-bound hypothesis the target uses is stated with its value, never as a free binder', async (t) => {
  // As Aesop's test records it (aesop/<tag>/AesopTest/SimpLetHypotheses.lean): `x : Nat := 0` in an unsolved goal.
  const [g] = parseGoals('P : Nat → Type\nh : P 0\nx : Nat := 0\n⊢ P x');
  const lemma = lemmaFromGoal('t.h', g!, false, 'by\n  exact h');
  t.match(
    lemma.text,
    /^theorem t\.h \(P : Nat → Type\) \(h : P 0\) :\n    let x : Nat := 0\n    P x := by\n  intro x\n  exact by\n/,
  );
  t.notMatch(lemma.text, /\(x : Nat\)/, 'no binder that forgets the value');
  t.same(lemma.args, ['P', 'h']);
  const [n] = parseGoals('n : ℕ := 3\n⊢ n = 3');
  t.equal(lemmaFromGoal('l', n!, true).text, 'theorem l :\n    let n : ℕ := 3\n    n = 3 := by\n  intro n\n  sorry');
});

t.test('every declaration’s axioms are asked in one REPL input, each answer read at its own line', async (t) => {
  // The REPL runs an input's commands in turn, each message at its line [repl v4.28.0: REPL/Frontend.lean].
  const lean = scriptedRunner((c) => {
    const ax = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/.exec(c.text);
    if (ax?.[1] === 'b') return { messages: [msg('error', c.origin, 'cannot use `#print axioms` here')] };
    if (ax?.[1] === 'c') return { messages: [msg('info', c.origin, "'c' depends on axioms: [sorryAx]")] };
    if (ax) return { messages: [msg('info', c.origin, `'${ax[1]}' does not depend on any axioms`)] };
    return {};
  });
  const content =
    'theorem a : True := trivial\ntheorem b : True := trivial\ntheorem c : True := trivial\ntheorem d : True := trivial\n';
  const r = await check.run(parseToolRequest('check', { content, environment: 'x' }), toolCtx(lean));
  // On the lines after the last declaration, in its input (ElabCommand.tail). The refusal about `b`, which has no
  // error of its own, is not a clean answer: the content is elaborated again with the questions apart, answered alike.
  const sent = lean.jobs[0]!.commands;
  t.equal(sent.length, 4, 'four declarations, four inputs');
  t.equal(sent[3]!.tail?.text.split('\n').length, 4, 'a question a line');
  t.equal(lean.jobs[1]!.commands.length, 5, 'again: the questions in an input of their own');
  t.same([...r.failed_declarations].sort(), ['b', 'c'], 'each answer goes to its own declaration');
  t.match(
    r.tool_messages.warnings.join('\n'),
    /'b': Lean did not say which axioms it uses \(Lean refused #print axioms/,
  );
  t.match(r.tool_messages.warnings.join('\n'), /'c' uses 'sorry'/);
});
