/**
 * verify_negation (verify_proof rule 6): the negated statements, structurally, and the check
 * of a disproof against them with the scripted runner double (shapes of `#check` and
 * `#print axioms` answers as the other verify_proof tests use them).
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { negateStatement, withNegation } from '../../src/tools/negation.ts';
import { verify_proof } from '../../src/tools/verify-proof.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

t.test('sorried defs in a theorem type are quantified in declaration order, not in order of use', async (t) => {
  const r = negateStatement(
    'def answer : ℕ := sorry\ndef other : ℕ := sorry\ntheorem t (x : ℕ) (h : x = other) : x + answer = 3 := by\n  simp\n',
  );
  t.same(r.theorems, [
    {
      name: 't',
      quantified: ['answer', 'other'],
      type: '∀ (answer : ℕ) (other : ℕ), ¬ (∀ (x : ℕ) (h : x = other), x + answer = 3)',
    },
  ]);
  t.equal(
    r.text,
    '\n\ntheorem t : ∀ (answer : ℕ) (other : ℕ), ¬ (∀ (x : ℕ) (h : x = other), x + answer = 3) := sorry\n',
    'quantified defs need not be declared; the proof is sorry',
  );
});

t.test(
  'a universe-polymorphic sorried def is not quantified; a def reached only through another def stays constant',
  async (t) => {
    const r = negateStatement(
      'universe u\ndef poly : Sort u := sorry\ndef a : ℕ := sorry\ndef b : ℕ := a + 1\ntheorem t : b = 5 ∧ poly = poly := sorry\ntheorem t2 : a = 4 := sorry\n',
    );
    t.same(
      r.theorems.map((x) => [x.name, x.quantified, x.type]),
      [
        ['t', [], '¬ (b = 5 ∧ poly = poly)'],
        ['t2', ['a'], '∀ (a : ℕ), ¬ (a = 4)'],
      ],
    );
    t.match(r.text, /def poly : Sort u := sorry/, 'the polymorphic def stays declared');
    t.match(r.text, /def a : ℕ := sorry\ndef b : ℕ := a \+ 1/, 'a stays declared: b still uses it');
    t.ok(
      negateStatement('def p.{v} : Sort v := sorry\ntheorem q : p = p := sorry\n').theorems[0]!.quantified.length === 0,
      'explicit universe parameters too',
    );
    t.same(
      negateStatement('def T : Type* := sorry\ntheorem q : T = T := sorry\n').theorems[0]!.quantified,
      [],
      'Type* too',
    );
    t.same(
      negateStatement('def V : TypeVec 2 := sorry\ndef W : Type := sorry\ntheorem q : V = V ∧ W = W := sorry\n')
        .theorems[0]!.quantified,
      ['V', 'W'],
      'TypeVec and Type (0) are not universe parameters',
    );
  },
);

t.test('each theorem is negated independently; function-typed defs are quantified with their Pi type', async (t) => {
  const r = negateStatement(
    'def f (n : ℕ) : ℕ := sorry\ndef g : ℕ := sorry\ntheorem t1 : f 1 = 2 := sorry\ntheorem t2 : g = 3 := sorry\n',
  );
  t.same(
    r.theorems.map((x) => x.type),
    ['∀ (f : ∀ (n : ℕ), ℕ), ¬ (f 1 = 2)', '∀ (g : ℕ), ¬ (g = 3)'],
  );
});

t.test("qualified references and namespaces; a theorem binder with the def's name is not the def", async (t) => {
  const ns = negateStatement(
    'namespace N\ndef answer : ℕ := sorry\ntheorem s : N.answer + 1 = answer := sorry\nend N\n',
  );
  t.same(ns.theorems, [{ name: 'N.s', quantified: ['N.answer'], type: '∀ (answer : ℕ), ¬ (answer + 1 = answer)' }]);
  const shadow = negateStatement('def answer : ℕ := sorry\ntheorem s (answer : ℕ) : answer = _root_.answer := sorry\n');
  t.same(
    shadow.theorems[0]!.type,
    "∀ (answer' : ℕ), ¬ (∀ (answer : ℕ), answer = answer')",
    'the bound name avoids capture',
  );
});

// The scripted double: `#check @n` answers from a per-job table; sorry gives the warning; axioms none;
// the definitional-equality probe (`example : T := @_root_.n`) fails in the jobs listed in notDefeq.
const lean = (types: Record<string, string>[], notDefeq: number[] = []) =>
  scriptedRunner((c, n) => {
    if (c.text.includes('@_root_.') && notDefeq.includes(n))
      return { messages: [msg('error', c.origin, 'type mismatch')] };
    const check = /^#check @(.+)$/.exec(c.text);
    if (check) return { messages: [msg('info', c.origin, `${check[1]} : ${types[n]?.[check[1]!] ?? '?'}`)] };
    const ax = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/.exec(c.text);
    if (ax) return { messages: [msg('info', c.origin, `'${ax[1]}' does not depend on any axioms`)] };
    if (/\bsorry\b/.test(c.text) && !c.text.startsWith('example'))
      return { messages: [msg('warning', c.origin, 'declaration uses `sorry`')] };
    return {};
  });
const statement = 'def answer : ℕ := sorry\ntheorem main : answer = 3 := sorry\n';
const negatedType = '∀ (answer : ℕ), ¬answer = 3';
const tool = withNegation(verify_proof);
const run = (content: string, verify_negation: boolean, types: Record<string, string>[], notDefeq: number[] = []) => {
  const r = lean(types, notDefeq);
  return {
    r,
    res: tool.run(
      parseToolRequest('verify_proof', { formal_statement: statement, content, environment: 'x', verify_negation }),
      toolCtx(r),
    ),
  };
};

t.test('a disproof is checked against the negated statement like a proof (accepted)', async (t) => {
  const disproof = 'theorem main : ∀ (answer : ℕ), ¬ (answer = 3) := by\n  intro a h\n  omega\n';
  const { r, res } = run(disproof, true, [
    { answer: 'ℕ', main: 'answer = 3' },
    { main: negatedType },
    { main: negatedType },
    { main: negatedType },
  ]);
  const out = await res;
  t.equal(out.okay, false, 'not a proof of the statement itself');
  t.ok(out.negation);
  t.equal(out.negation!.okay, true);
  t.same(out.negation!.failed_declarations, []);
  t.match(
    r.jobs[2]!.commands.map((c) => c.text).join('\n'),
    /theorem main : ∀ \(answer : ℕ\), ¬ \(answer = 3\) := sorry/,
    'the negated statement was elaborated',
  );
  t.ok('negation_ms' in out.timings);
});

t.test('a bogus disproof is rejected: sorry, or a different statement', async (t) => {
  const sorried = await run('theorem main : ∀ (answer : ℕ), ¬ (answer = 3) := by\n  sorry\n', true, [
    {},
    {},
    { main: negatedType },
    { main: negatedType },
  ]).res;
  t.equal(sorried.negation!.okay, false);
  t.same(sorried.negation!.failed_declarations, ['main']);
  t.match(sorried.negation!.tool_messages.errors.join('\n'), /Declaration 'main' is incomplete/);
  const weaker = await run(
    'theorem main : ∀ (answer : ℕ), ¬ (answer = 4) := by\n  omega\n',
    true,
    [{}, {}, { main: negatedType }, { main: '∀ (answer : ℕ), ¬answer = 4' }],
    [3],
  ).res;
  t.equal(weaker.negation!.okay, false);
  t.match(weaker.negation!.tool_messages.errors.join('\n'), /Theorem 'main' does not match expected signature/);
});

t.test('without verify_negation there is no negation object and no extra elaboration', async (t) => {
  const { r, res } = run('def answer : ℕ := 3\ntheorem main : answer = 3 := rfl\n', false, [
    { answer: 'ℕ', main: 'answer = 3' },
    { answer: 'ℕ', main: 'answer = 3' },
  ]);
  const out = await res;
  t.equal(out.negation, undefined);
  t.equal(r.jobs.length, 2);
});
