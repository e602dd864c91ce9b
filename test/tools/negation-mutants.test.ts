/**
 * Tests written against the surviving mutants of src/tools/negation.ts (docs/mutation.md): which defs are
 * sorried and quantifiable, which names are the theorem's own binders, how names resolve, and the text
 * written. Binder syntax is Lean's `declSig` (binder identifiers or bracketed binders, then the type)
 * [lean4 v4.28.0: src/Lean/Parser/Command.lean, `declSig`]; a universe-polymorphic def cannot be bound by a
 * `∀` over one type, hence is not quantified.
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { negateStatement, withNegation } from '../../src/tools/negation.ts';
import { verify_proof } from '../../src/tools/verify-proof.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const quantified = (statement: string) => negateStatement(statement).theorems.map((x) => [x.name, x.quantified]);
const ANSWER = 'def answer : ℕ := sorry\n';

t.test(
  'sorried abbrev and opaque are quantified; theorems, bodies merely containing sorry and body-less opaques are not',
  async (t) => {
    t.same(quantified('abbrev a : ℕ := sorry\nopaque o : ℕ := by sorry\ntheorem t : a = o := sorry\n'), [
      ['t', ['a', 'o']],
    ]);
    t.same(quantified('theorem h : 1 = 1 := sorry\ntheorem t : h = h := sorry\n'), [
      ['h', []],
      ['t', []],
    ]);
    t.same(
      quantified(
        'def fixed : ℕ := 3\ndef p : ℕ := sorry + 1\ndef q : ℕ := id sorry\ntheorem t : fixed = p + q := sorry\n',
      ),
      [['t', []]],
    );
    t.same(quantified('opaque e : ℕ\ntheorem t : e = 1 := sorry\n'), [['t', []]]);
  },
);

t.test('universe polymorphism: read from the def’s own header and signature only', async (t) => {
  t.same(
    quantified(`${ANSWER}-- not answer.{u}\ntheorem t : answer = 1 := sorry\n`),
    [['t', ['answer']]],
    'a comment elsewhere',
  );
  t.same(quantified('def f.{u} : PUnit.{u+1} := sorry\ntheorem t : f = f := sorry\n'), [['t', []]], 'explicit f.{u}');
  t.same(quantified('def g : Type → ℕ := sorry\ntheorem t : g ℕ = 1 := sorry\n'), [['t', ['g']]], '`Type →` is Type 0');
});

t.test('names reached through open, a qualified prefix, or an unresolved longer name', async (t) => {
  t.same(quantified(`namespace N\n${ANSWER}end N\nopen N\ntheorem t : answer = 1 := sorry\n`), [['t', ['N.answer']]]);
  t.same(quantified(`namespace N\n${ANSWER}end N\ntheorem t : N.answer = 1 := sorry\n`), [['t', ['N.answer']]]);
  const r = negateStatement(`${ANSWER}theorem t : answer.succ = 1 := sorry\n`);
  t.same(r.theorems[0]!.quantified, ['answer']);
  t.equal(r.theorems[0]!.type, '∀ (answer : ℕ), ¬ (answer.succ = 1)');
});

// `.answer` after a space is Lean's leading-dot identifier, resolved by the expected type [lean4 v4.28.0:
// src/Lean/Parser/Term.lean, `dotIdent`]: never the sorried def, whatever the scope holds.
t.test('a name right after a dot is resolved by type, not by scope; one after a parenthesis is', async (t) => {
  const r = negateStatement(`${ANSWER}theorem t (g : Color → ℕ) : g .answer = (answer) := sorry\n`);
  t.same(r.theorems[0]!.quantified, ['answer']);
  t.equal(
    r.theorems[0]!.type,
    "∀ (answer' : ℕ), ¬ (∀ (g : Color → ℕ), g .answer = (answer'))",
    'the field keeps its name',
  );
  t.same(quantified(`${ANSWER}theorem t (g : Color → ℕ) : g .answer = 1 := sorry\n`), [['t', []]]);
});

t.test('the theorem’s own binders shadow a sorried def; names inside a binder’s type do not', async (t) => {
  t.same(quantified(`${ANSWER}theorem t (answer : ℕ) : answer = 1 := sorry\n`), [['t', []]], 'one binder');
  t.same(
    quantified(`${ANSWER}theorem t {n : ℕ} (answer : ℕ) : n + answer = 1 := sorry\n`),
    [['t', []]],
    'a second group',
  );
  t.same(
    quantified(`${ANSWER}theorem t (h : (1) = answer) : answer = 2 := sorry\n`),
    [['t', ['answer']]],
    'nested parens',
  );
  t.same(quantified(`${ANSWER}theorem t (h : answer = 1) : answer = 2 := sorry\n`), [['t', ['answer']]], 'in a type');
  t.same(
    quantified(`${ANSWER}theorem t (h : True) answer : answer = 1 := sorry\n`),
    [['t', []]],
    'a binder identifier',
  );
  t.same(quantified(`${ANSWER}theorem t answer (h : True) : answer = 1 := sorry\n`), [['t', []]], 'one first');
});

t.test('a theorem without a type: a warning and no negation', async (t) => {
  const r = negateStatement(`${ANSWER}theorem t := sorry\n`);
  t.same(r.theorems, []);
  t.same(r.warnings, ["'t': no statement to negate"]);
  t.same(negateStatement(`${ANSWER}theorem t : answer = 1 := sorry\n`).warnings, []);
});

t.test('the text written: the def’s type or `_`, the signature’s own spacing, a theorem without a body', async (t) => {
  t.equal(
    negateStatement('def answer := sorry\ntheorem t : answer = 1 := sorry\n').theorems[0]!.type,
    '∀ (answer : _), ¬ (answer = 1)',
  );
  t.equal(
    negateStatement(`${ANSWER}theorem t  : answer = 1\n    := by simp\n`).text,
    '\ntheorem t  : ∀ (answer : ℕ), ¬ (answer = 1)\n    := sorry\n',
  );
  const bodyless = negateStatement(`${ANSWER}theorem t : answer = 1\n`);
  t.equal(bodyless.theorems[0]!.type, '∀ (answer : ℕ), ¬ (answer = 1)');
});

const noTheorem = 'def d : ℕ := 1\n';
/** Answers every `#print axioms` question with printAxiomsOf's "does not depend on any axioms" [lean4 v4.28.0: src/Lean/Elab/Print.lean]. */
const axiomsFree = scriptedRunner((c) => {
  const n = /#print axioms _root_\.(\S+)/.exec(c.text)?.[1];
  return n ? { messages: [msg('info', c.origin, `'${n}' does not depend on any axioms`)] } : {};
});
t.test('verify_negation with nothing negated is not okay, and negation_ms is a clock difference', async (t) => {
  const real = performance.now.bind(performance);
  let tick = 1e9;
  performance.now = () => (tick += 1);
  t.teardown(() => {
    performance.now = real;
  });
  const out = await withNegation(verify_proof).run(
    parseToolRequest('verify_proof', {
      formal_statement: noTheorem,
      content: noTheorem,
      environment: 'x',
      verify_negation: true,
    }),
    toolCtx(axiomsFree),
  );
  performance.now = real;
  t.equal(out.okay, true, 'the statement itself checks');
  t.same(out.negation?.tool_messages.errors, [], 'the negated check found nothing wrong');
  t.equal(out.negation?.okay, false, 'but nothing was negated');
  t.ok((out.timings as Record<string, number>).negation_ms! < 1e6, 'a difference, not a sum of clock readings');
});

t.test('a theorem named with guillemets: its negated type is its statement, nothing in front', async (t) => {
  t.same(negateStatement('theorem «t» (n : ℕ) : n = n := sorry\n').theorems, [
    { name: '«t»', quantified: [], type: '¬ (∀ (n : ℕ), n = n)' },
  ]);
});

t.test('a sorried def applied in an anonymous instance binder is the def, not a binder', async (t) => {
  // `[Coe α (ℕ : Type)]` binds no name: the colon inside its parentheses is a type ascription.
  const statement = 'def α : Type := sorry\ntheorem t [Coe α (ℕ : Type)] (a : α) : (a : ℕ) = (a : ℕ) := sorry\n';
  t.same(quantified(statement), [['t', ['α']]]);
});
