/**
 * verify_proof's rules with an injected Lean runner (a scripted test double of the backend:
 * it answers `#check`, `#print axioms` and the definitional-equality checks from tables the
 * tests set). What Lean itself answers is covered by the integration tests.
 */
import t from 'tap';
import type { LeanRunner } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { AXIOMS_QUESTION, CHECK_QUESTION, DEFEQ_PROBE, msg, scriptedRunner, toolCtx } from './runner.ts';
import { piType } from '../../src/syntax/statements.ts';
import { defeqCheck, permits, verify_proof } from '../../src/tools/verify-proof.ts';

const env = environmentConfig.parse({
  name: 'x',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: 'import Mathlib',
  project_dir: '/tmp',
});

interface Script {
  /** `#check @name` answers, per job (0: the statement, 1: the candidate). */
  types: Record<string, string>[];
  axioms?: Record<string, string[]>;
  /** Names whose definitional-equality check fails. */
  notDefeq?: string[];
  /** Body commands containing this text get an error. */
  errorMarker?: string;
}

function runner(s: Script) {
  return scriptedRunner((c, n) => {
    const check = CHECK_QUESTION.exec(c.text);
    const axioms = AXIOMS_QUESTION.exec(c.text);
    const example = DEFEQ_PROBE.exec(c.text);
    if (check) return { messages: [msg('info', c.origin, `${check[1]} : ${s.types[n]?.[check[1]!] ?? '?'}`)] };
    if (axioms) {
      const ax = s.axioms?.[axioms[1]!] ?? ['propext'];
      const text = ax.length
        ? `'${axioms[1]}' depends on axioms: [${ax.join(', ')}]`
        : `'${axioms[1]}' does not depend on any axioms`;
      return { messages: [msg('info', c.origin, text)] };
    }
    if (example && s.notDefeq?.includes(example[1]!)) return { messages: [msg('error', c.origin, 'type mismatch')] };
    if (s.errorMarker && c.text.includes(s.errorMarker))
      return { messages: [msg('error', c.origin, 'unsolved goals')] };
    return {};
  });
}
const ctx = (lean: LeanRunner) => toolCtx(lean, env);
const run = (body: Record<string, unknown>, s: Script) =>
  verify_proof.run(parseToolRequest('verify_proof', { environment: 'x', ...body }), ctx(runner(s)));

const statement = 'abbrev answer : ℕ := sorry\n\ntheorem main (n : ℕ) (h : 0 < n) : n ≥ answer := by\n  sorry\n';
const good = 'abbrev answer : ℕ := 1\n\ntheorem main (n : ℕ) (h : 0 < n) : n ≥ answer := by\n  omega\n';
const types = { answer: 'ℕ', main: '∀ (n : ℕ), 0 < n → n ≥ answer' };

t.test('signatures become Pi types, replayed in the statement’s namespace and opens', async (t) => {
  const f = parseSource(
    'namespace P\nopen Real in\ntheorem t.{u} {α : Sort u} [Inhabited α] (x : α) : x = x := rfl\nend P\n',
  );
  const d = f.decls[0]!;
  t.equal(piType(f, d), '∀ {α : Sort u} [Inhabited α] (x : α), x = x');
  t.equal(
    defeqCheck(f, d),
    'namespace P\nuniverse u\nopen Real\nset_option autoImplicit true in\nset_option relaxedAutoImplicit true in\ntheorem axle_expected_0 {α : Sort u} [Inhabited α] (x : α) : x = x := sorry\n#check (@_root_.P.t : type_of% @axle_expected_0)\nend P',
  );
  const g = parseSource('theorem plain : 1 = 1 := rfl\n');
  t.equal(
    defeqCheck(g, g.decls[0]!),
    'section\nset_option autoImplicit true in\nset_option relaxedAutoImplicit true in\ntheorem axle_expected_0 : 1 = 1 := sorry\n#check (@_root_.plain : type_of% @axle_expected_0)\nend',
  );
});

t.test('the statement is re-stated in its own scope (universes, section variables), sorried defs opaque', async (t) => {
  // Section variables a statement mentions become its binders [lean4: variable inclusion], so the
  // comparison must see them; the old check rebuilt `∀ binders, type` from the declaration alone.
  const f = parseSource(
    'universe u\nsection S\nvariable {α : Type u} (xs : List α)\ntheorem len : xs.length = xs.length := sorry\nend S\nsection T\nvariable (junk : Nat)\nend T\n',
  );
  t.equal(
    defeqCheck(f, f.decls[0]!, 0, ['answer']),
    [
      'section',
      'universe u',
      'variable {α : Type u} (xs : List α)',
      'set_option autoImplicit true in',
      'set_option relaxedAutoImplicit true in',
      'theorem axle_expected_0 : xs.length = xs.length := sorry',
      'set_option allowUnsafeReducibility true in',
      'attribute [local irreducible] _root_.answer in',
      '#check (@_root_.len : type_of% @axle_expected_0)',
      'end',
    ].join('\n'),
  );
  const r = runner({ types: [types, types] });
  await verify_proof.run(
    parseToolRequest('verify_proof', {
      environment: 'x',
      formal_statement: statement,
      content: good,
      mathlib_options: true,
    }),
    ctx(r),
  );
  const checks = r.jobs.map((j) => j.commands.find((c) => c.text.endsWith('#check @main'))!.text);
  t.equal(checks[0], checks[1], 'both sides print the type under the same options');
  t.match(checks[0], /set_option pp\.fullNames true in/);
  t.match(
    r.jobs[1]!.commands.find((c) => c.text.includes('type_of%'))!.text,
    /attribute \[local irreducible\] _root_\.answer in/,
    'the sorried answer is not unfolded',
  );
});

t.test('a valid candidate: okay, with the sorried answer left unchecked (rule 2)', async (t) => {
  const r = await run({ formal_statement: statement, content: good }, { types: [types, types] });
  t.same(r.tool_messages.errors, []);
  t.equal(r.okay, true);
  t.same(r.failed_declarations, []);
  t.ok(r.timings.formal_statement_ms! >= 0 && r.timings.candidate_ms! >= 0 && r.timings.declarations_ms! >= 0);
});

t.test('missing declaration, kind mismatch, changed theorem type', async (t) => {
  const missing = await run(
    { formal_statement: statement, content: 'abbrev answer : ℕ := 1\n' },
    { types: [types, types] },
  );
  t.same(missing.tool_messages.errors, ["Missing required declaration 'main'"]);
  t.equal(missing.okay, false);
  const kind = await run(
    { formal_statement: statement, content: good.replace('abbrev answer', 'def answer') },
    { types: [types, types] },
  );
  t.same(kind.tool_messages.errors, ["Kind mismatch for 'answer': candidate has def but expected abbrev"]);
  const changed = await run(
    { formal_statement: statement, content: good.replace('n ≥ answer', 'n ≥ 0') },
    { types: [types, { ...types, main: '∀ (n : ℕ), 0 < n → n ≥ 0' }], notDefeq: ['main'] },
  );
  t.same(changed.tool_messages.errors, [
    "Theorem 'main' does not match expected signature: expected ∀ (n : ℕ), 0 < n → n ≥ answer, got ∀ (n : ℕ), 0 < n → n ≥ 0",
  ]);
  t.same(changed.failed_declarations, ['main']);
});

t.test('use_def_eq false compares the printed types at face value', async (t) => {
  const s = { types: [types, { ...types, main: '∀ (n : ℕ), n > 0 → n ≥ answer' }] };
  t.equal((await run({ formal_statement: statement, content: good }, s)).okay, true, 'defeq: accepted');
  const face = await run({ formal_statement: statement, content: good, use_def_eq: false }, s);
  t.equal(face.okay, false);
  t.match(face.tool_messages.errors[0], /^Theorem 'main' does not match expected signature/);
});

t.test('sorry, errors and axioms; permitted_sorries; native_decide globs', async (t) => {
  const sorried = await run(
    { formal_statement: statement, content: good },
    { types: [types, types], axioms: { main: ['propext', 'sorryAx'] } },
  );
  t.same(sorried.tool_messages.errors, ["Declaration 'main' is incomplete (uses 'sorry' or has errors)"]);
  const permitted = await run(
    { formal_statement: statement, content: good, permitted_sorries: ['main', 'absent_name'] },
    { types: [types, types], axioms: { main: ['sorryAx'] } },
  );
  t.equal(permitted.okay, true, 'a permitted theorem may use sorry; absent names are ignored');
  const broken = await run(
    { formal_statement: statement, content: good },
    { types: [types, types], errorMarker: 'omega' },
  );
  t.same(broken.failed_declarations, ['main']);
  t.equal(broken.okay, false);
  const foreign = await run(
    { formal_statement: statement, content: good },
    { types: [types, types], axioms: { main: ['propext', 'Lean.ofReduceBool'] } },
  );
  t.same(foreign.tool_messages.errors, [
    "In 'main': axiom 'Lean.ofReduceBool' is not in the allowed set of standard axioms",
  ]);
  const old = await run(
    { formal_statement: statement, content: good, permitted_sorries: ['Lean.ofReduceBool'] },
    { types: [types, types], axioms: { main: ['Lean.ofReduceBool'] } },
  );
  t.equal(old.okay, true, '≤ 4.28: the axiom named in permitted_sorries');
  const glob = await run(
    { formal_statement: statement, content: good, permitted_sorries: ['main._native.native_decide.*'] },
    { types: [types, types], axioms: { main: ['main._native.native_decide.ax_1_1'] } },
  );
  t.equal(glob.okay, true, '≥ 4.29: a glob over the auxiliary axioms');
  t.ok(permits(['a.*'])('a.b.c') && !permits(['a.*'])('ab'));
});

t.test('permitted_sorries: a name is exact (not a prefix), a glob reaches further', async (t) => {
  const withAux = `${good}\ntheorem main_aux : True := sorry\n`;
  const s = { types: [types, types], axioms: { main_aux: ['sorryAx'] } };
  const exact = await run({ formal_statement: statement, content: withAux, permitted_sorries: ['main'] }, s);
  t.equal(exact.okay, false, '`main` does not excuse `main_aux`');
  t.same(exact.failed_declarations, ['main_aux']);
  const glob = await run({ formal_statement: statement, content: withAux, permitted_sorries: ['main*'] }, s);
  t.equal(glob.okay, true, 'the glob `main*` does');
  t.equal(permits(['main'])('main_aux'), false);
  t.equal(permits(['main*'])('main_aux'), true);
});

t.test('definitions must keep a non-sorried value; open private is banned; unsafe is reported', async (t) => {
  const defStmt = 'def double (n : ℕ) : ℕ := 2 * n\n\ntheorem d : double 2 = 4 := by sorry\n';
  const defTypes = { double: 'ℕ → ℕ', d: 'double 2 = 4' };
  const changed = await run(
    { formal_statement: defStmt, content: 'def double (n : ℕ) : ℕ := n + n\n\ntheorem d : double 2 = 4 := rfl\n' },
    { types: [defTypes, defTypes] },
  );
  t.same(changed.tool_messages.errors, [
    "Definition 'double' does not match expected signature: expected 2 * n, got n + n",
  ]);
  const priv = await run(
    { formal_statement: statement, content: `open private foo in\n${good}` },
    { types: [types, types] },
  );
  t.match(priv.tool_messages.errors[0], "Candidate uses banned 'open private' command");
  t.same(priv.failed_declarations.sort(), ['answer', 'main']);
  const unsafe = await run(
    { formal_statement: statement, content: `unsafe def helper : ℕ := 0\n${good}` },
    { types: [types, types] },
  );
  t.same(unsafe.tool_messages.errors, ["Unsafe function 'helper' detected"]);
});

t.test('syntax the statement does not declare is refused (it could change what the statement means)', async (t) => {
  const r = await run(
    { formal_statement: statement, content: `local notation:50 a " ≥ " b => True\n${good}` },
    { types: [types, types] },
  );
  t.equal(r.okay, false);
  t.match(r.tool_messages.errors[0], /Candidate declares syntax the statement does not \(notation at line 1\)/);
  const same = await run(
    { formal_statement: `notation "ℕ'" => ℕ\n${statement}`, content: `notation "ℕ'" => ℕ\n${good}` },
    { types: [types, types] },
  );
  t.equal(same.okay, true, 'syntax the statement itself declares is fine');
  const inst = await run(
    { formal_statement: statement, content: `instance (priority := high) weird : LE ℕ := ⟨fun _ _ => True⟩\n${good}` },
    { types: [types, types] },
  );
  t.match(inst.tool_messages.errors[0], /Candidate declares an instance the statement does not \(instance at line 1\)/);
});

// An `axiom` drops section variables its type does not use (`usedOnly := true` in
// lean4 src/Lean/Elab/Declaration.lean, `elabAxiom`), a theorem keeps instance-implicit ones: re-state as a theorem.
t.test('a theorem is re-stated as a theorem, keeping unused instance-implicit variables', async (t) => {
  const f = parseSource('section\nvariable {α : Type} [Inhabited α]\ntheorem t (x : α) : x = x := rfl\nend\n');
  const text = defeqCheck(f, f.decls[0]!, 0)!;
  t.match(text, /\nvariable \{α : Type\} \[Inhabited α\]\n/);
  t.match(text, /\ntheorem axle_expected_0 \(x : α\) : x = x := sorry\n/);
  t.notMatch(text, /\naxiom /);
  const d = parseSource('def answer : Nat := sorry\n');
  t.match(defeqCheck(d, d.decls[0]!, 0)!, /\naxiom axle_expected_0 : Nat\n/, 'a def is still an axiom');
});

// A def, abbrev or instance keeps the section variables its value uses (`withUsed` [lean4 v4.28.0:
// src/Lean/Elab/MutualDef.lean]); as an axiom it lost them, so a candidate identical to the statement failed.
t.test(
  'a def or instance under section variables is re-stated with its value, keeping the binders its value adds',
  async (t) => {
    const f = parseSource(
      'section\nvariable {M : Type} [Mul M] [Inhabited M]\ninstance sq : Inhabited (List M) := ⟨[default * default]⟩\n' +
        'def twice (x : M) : M := x * x\ndef fib : Nat → Nat\n  | 0 => 0\n  | n + 1 => fib n\ndef rec2 (n : Nat) : Nat := n\ntermination_by n\n' +
        'def helped : M := aux where aux : M := default\nopaque op : M\nend\n',
    );
    const [inst, twice, fib, rec2, helped, op] = f.decls;
    t.match(
      defeqCheck(f, inst!)!,
      /\nnoncomputable def axle_expected_0 : Inhabited \(List M\) := ⟨\[default \* default\]⟩\n/,
    );
    t.match(defeqCheck(f, twice!)!, /\nnoncomputable def axle_expected_0 \(x : M\) : M := x \* x\n/);
    t.match(
      defeqCheck(f, fib!)!,
      /\nnoncomputable def axle_expected_0 : Nat → Nat \| 0 => 0\n  \| n \+ 1 => fib n\n/,
      'equations',
    );
    t.match(defeqCheck(f, rec2!)!, /\naxiom axle_expected_0 \(n : Nat\) : Nat\n/, 'termination clauses: an axiom');
    t.match(
      defeqCheck(f, helped!)!,
      /\nnoncomputable def axle_expected_0 : M := aux where aux : M := default\n/,
      'with its where',
    );
    t.match(defeqCheck(f, op!)!, /\naxiom axle_expected_0 : M\n/, 'an opaque stays an axiom');
    const plain = parseSource('def answer : Nat := 3\n');
    t.match(defeqCheck(plain, plain.decls[0]!)!, /\naxiom axle_expected_0 : Nat\n/, 'no variable in force: an axiom');
  },
);

// Content that ends inside another namespace: the probes run after a command that leaves it, so the re-stated
// statement is in the statement's own namespace (A), not nested in the candidate's open one (B.A).
t.test('a candidate that ends inside a namespace: the probes run at the top level', async (t) => {
  const lean = runner({ types: [{ 'A.t': '1 = 1' }, { 'A.t': '1 = 1' }] });
  const r = await verify_proof.run(
    parseToolRequest('verify_proof', {
      environment: 'x',
      formal_statement: 'namespace A\ntheorem t : 1 = 1 := sorry\nend A\n',
      content: 'namespace A\ntheorem t : 1 = 1 := rfl\nend A\nnamespace B\n',
    }),
    ctx(lean),
  );
  t.equal(r.okay, true, JSON.stringify(r.tool_messages));
  const sent = lean.jobs[1]!.commands.map((c) => c.text);
  const leave = sent.indexOf('end B');
  t.ok(leave > 0, 'B is left after the content');
  t.ok(
    sent.slice(leave + 1).some((x) => x.startsWith('namespace A\n') && x.includes('axle_expected_0')),
    'then the statement is re-stated in A',
  );
  t.notOk(
    sent.slice(0, leave).some((x) => x.includes('axle_expected_0') || x.includes('#check @')),
    'no probe before it',
  );
  t.equal(lean.jobs[0]!.commands.filter((c) => c.text === 'end B').length, 0, 'the statement leaves nothing open');
});
