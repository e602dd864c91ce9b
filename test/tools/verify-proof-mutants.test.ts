/**
 * verify_proof's rules, pinned where the first mutation run
 * (bench/results/mutation-2026-11-27T10-51-46-648Z.json) found them unguarded: `open private` as
 * a command, instances and attributes (rule 7), sorried definitions (rule 2), face-value types
 * under use_def_eq, the exact error texts, and the timings' arithmetic. Lean is a scripted double
 * (test/tools/runner.ts) answering `#check @name` as `name : type` and `#print axioms` in the
 * shape of lean4 v4.28.0 src/Lean/Elab/Print.lean, `printAxiomsOf`.
 */
import t from 'tap';
import { LeanFailure } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { defeqCheck, verify_proof } from '../../src/tools/verify-proof.ts';
import { AXIOMS_QUESTION, CHECK_QUESTION, DEFEQ_PROBE, msg, scriptedRunner, toolCtx } from './runner.ts';

interface Script {
  /** `#check @name` answers per job (0: the statement, 1: the candidate); a name not listed gets no answer. */
  types: Record<string, string>[];
  /** Names whose `#print axioms` gets no answer. */
  unanswered?: string[];
  /** Names whose definitional-equality check fails. */
  notDefeq?: string[];
  /** Body commands containing this text get an error. */
  errorMarker?: string;
}

function runner(s: Script) {
  return scriptedRunner((c, n) => {
    const check = CHECK_QUESTION.exec(c.text);
    const axioms = AXIOMS_QUESTION.exec(c.text);
    const defeq = DEFEQ_PROBE.exec(c.text);
    if (check) {
      const type = s.types[n]?.[check[1]!];
      return { messages: type === undefined ? [] : [msg('info', c.origin, `${check[1]} : ${type}`)] };
    }
    if (axioms)
      return s.unanswered?.includes(axioms[1]!)
        ? {}
        : { messages: [msg('info', c.origin, `'${axioms[1]}' does not depend on any axioms`)] };
    if (defeq && s.notDefeq?.includes(defeq[1]!)) return { messages: [msg('error', c.origin, 'type mismatch')] };
    if (s.errorMarker && c.text.includes(s.errorMarker))
      return { messages: [msg('error', c.origin, 'unsolved goals')] };
    return {};
  });
}

async function run(body: Record<string, unknown>, s: Script) {
  const lean = runner(s);
  const r = await verify_proof.run(parseToolRequest('verify_proof', { environment: 'x', ...body }), toolCtx(lean));
  return { r, lean };
}

const statement = 'theorem main : 1 + 1 = 2 := by\n  sorry\n';
const proof = 'theorem main : 1 + 1 = 2 := by\n  rfl\n';
const same = { types: [{ main: '1 + 1 = 2' }, { main: '1 + 1 = 2' }] };

t.test('rule 5: `open private` as a command is banned; other opens, as commands or prefixes, are not', async (t) => {
  const banned = await run({ formal_statement: statement, content: `open private foo\n${proof}` }, same);
  t.equal(banned.r.okay, false);
  t.same(banned.r.tool_messages.errors, ["Candidate uses banned 'open private' command"]);
  t.same(banned.r.failed_declarations, ['main']);
  for (const content of [
    `open Nat\n${proof}`,
    `open Nat in\n${proof}`,
    `set_option maxHeartbeats 400 in\n${proof}`,
    // A documented private declaration: its second token is `private`, but it is no `open`.
    `/-- A helper. -/\nprivate theorem helper : True := trivial\n${proof}`,
  ]) {
    const { r } = await run({ formal_statement: statement, content }, same);
    t.same([r.okay, r.tool_messages.errors], [true, []], content);
  }
});

const rule7 = (what: string, keyword: string) =>
  `Candidate declares ${what} the statement does not (${keyword} at line 1); it could change the meaning of the statement`;

t.test('rule 7: instances and `attribute [instance]` are refused, other attributes and words are not', async (t) => {
  const types = [
    { main: '1 + 1 = 2', answer: 'ℕ' },
    { main: '1 + 1 = 2', answer: 'ℕ' },
  ];
  const stmt = `def answer : ℕ := 2\n\n${statement}`;
  const cases: [string, string[]][] = [
    [`attribute [instance] answer\n`, [rule7('an instance', 'attribute')]],
    [`instance : Inhabited ℕ := ⟨3⟩\n`, [rule7('an instance', 'instance')]],
    [`notation "two" => 2\n`, [rule7('syntax', 'notation')]],
    [`attribute [simp] answer\n`, []],
  ];
  for (const [head, errors] of cases) {
    const content = `${head}def answer : ℕ := 2\n\ntheorem main : 1 + 1 = 2 := by\n  -- no instance is needed\n  rfl\n`;
    const { r } = await run({ formal_statement: stmt, content }, { types });
    t.same([r.okay, r.tool_messages.errors], [errors.length === 0, errors], head);
  }
  // The word `instance` elsewhere in the file does not make an attribute an instance.
  const content = `-- an instance of the answer\nattribute [simp] answer\ndef answer : ℕ := 2\n\n${proof}`;
  const { r } = await run({ formal_statement: stmt, content }, { types });
  t.same(r.tool_messages.errors, []);
});

t.test('rule 2: only defs whose whole statement body is `sorry` are opaque in the defeq check', async (t) => {
  const stmt = 'def a : ℕ := sorry\ndef b : ℕ := id sorry\ndef c : ℕ := sorry + 1\ntheorem main : a = a := sorry\n';
  const text = defeqCheck(parseSource(stmt), parseSource(stmt).decls[3]!, 0, ['a']);
  t.match(text, /\nattribute \[local irreducible\] _root_\.a in\n/);
  const types = { a: 'ℕ', b: 'ℕ', c: 'ℕ', main: 'a = a' };
  const { r, lean } = await run(
    {
      formal_statement: stmt,
      content: 'def a : ℕ := 1\ndef b : ℕ := id sorry\ndef c : ℕ := sorry + 1\ntheorem main : a = a := rfl\n',
      use_def_eq: true,
    },
    { types: [types, types] },
  );
  const sent = lean.jobs[1]!.commands.map((c) => c.text).filter((x) => x.includes('local irreducible'));
  t.same(
    sent.map((x) => /attribute \[local irreducible\] (.*) in/.exec(x)?.[1]),
    ['_root_.a', '_root_.a', '_root_.a', '_root_.a'],
  );
  t.ok(
    r.tool_messages.errors.every((e) => !e.startsWith('Definition')),
    'the values are the statement’s',
  );
});

t.test('rule 2: a non-sorried value must be kept, whatever sorry it contains; theorem proofs are free', async (t) => {
  const types = { b: 'ℕ', c: 'ℕ', helper: '1 = 1', main: '1 + 1 = 2' };
  const stmt = `def b : ℕ := id sorry\ndef c : ℕ := sorry + 1\ntheorem helper : 1 = 1 := rfl\n${statement}`;
  const content = `def b : ℕ := 5\ndef c : ℕ := 5\ntheorem helper : 1 = 1 := by simp\n${proof}`;
  const { r } = await run({ formal_statement: stmt, content }, { types: [types, types] });
  t.same(r.tool_messages.errors, [
    "Definition 'b' does not match expected signature: expected id sorry, got 5",
    "Definition 'c' does not match expected signature: expected sorry + 1, got 5",
  ]);
  t.same(r.failed_declarations, ['b', 'c']);
  // A statement declaration without a value leaves the candidate's free.
  const types2 = { x: 'ℕ', main: '1 + 1 = 2' };
  const free = await run(
    { formal_statement: `opaque x : ℕ\n${statement}`, content: `opaque x : ℕ := 5\n${proof}` },
    { types: [types2, types2] },
  );
  t.same([free.r.okay, free.r.tool_messages.errors], [true, []]);
});

t.test('rule 1: the exact type-mismatch texts, by kind, with unknown types', async (t) => {
  const { r } = await run(
    { formal_statement: `def k : ℕ := sorry\n${statement}`, content: `def k : ℤ := 1\n${proof}`, use_def_eq: false },
    { types: [{ k: 'ℕ', main: '1 + 1 = 2' }, { k: 'ℤ' }] },
  );
  t.same(r.tool_messages.errors, [
    "Definition 'k' does not match expected signature: expected ℕ, got ℤ",
    "Theorem 'main' does not match expected signature: expected 1 + 1 = 2, got (unknown)",
  ]);
  const unknown = await run(
    { formal_statement: statement, content: proof, use_def_eq: false },
    { types: [{}, { main: '1 + 1 = 2' }] },
  );
  t.same(unknown.r.tool_messages.errors, [
    "Theorem 'main' does not match expected signature: expected (unknown), got 1 + 1 = 2",
  ]);
  t.equal(unknown.r.okay, false);
});

t.test('use_def_eq: a pair without a type to check is compared at face value; a failed check fails', async (t) => {
  const stmt = `def k := 5\n${statement}`;
  t.equal(defeqCheck(parseSource(stmt), parseSource(stmt).decls[0]!), undefined, 'no type, no check');
  t.equal(
    defeqCheck(parseSource('example : True := trivial\n'), parseSource('example : True := trivial\n').decls[0]!),
    undefined,
  );
  const content = `def k := 5\n${proof}`;
  const differ = await run(
    { formal_statement: stmt, content, use_def_eq: true },
    {
      types: [
        { k: 'ℕ', main: '1 + 1 = 2' },
        { k: 'ℤ', main: '1 + 1 = 2' },
      ],
    },
  );
  t.same(differ.r.tool_messages.errors, ["Definition 'k' does not match expected signature: expected ℕ, got ℤ"]);
  const agree = await run(
    { formal_statement: stmt, content, use_def_eq: true },
    {
      types: [
        { k: 'ℕ', main: '1 + 1 = 2' },
        { k: 'ℕ', main: '1 + 1 = 2' },
      ],
    },
  );
  t.same([agree.r.okay, agree.r.tool_messages.errors], [true, []]);
  t.equal(
    agree.lean.jobs[1]!.commands.filter((c) => c.text.includes('type_of%')).length,
    1,
    'one defeq check, for main',
  );
  const notDefeq = await run(
    { formal_statement: stmt, content, use_def_eq: true },
    {
      ...same,
      types: [
        { k: 'ℕ', main: 'X' },
        { k: 'ℕ', main: 'Y' },
      ],
      notDefeq: ['main'],
    },
  );
  t.same(notDefeq.r.failed_declarations, ['main']);
  const defeqOnly = await run(
    { formal_statement: stmt, content, use_def_eq: true },
    {
      types: [
        { k: 'ℕ', main: 'X' },
        { k: 'ℕ', main: 'Y' },
      ],
    },
  );
  t.same(
    [defeqOnly.r.okay, defeqOnly.r.tool_messages.errors],
    [true, []],
    'the defeq check decides, not the printed types',
  );
});

t.test('rules 3 and 4: unsafe and partial, unanswered axioms, unnamed declarations, each message once', async (t) => {
  const types = { f: 'ℕ → ℕ', g: 'ℕ → ℕ', main: '1 + 1 = 2' };
  const { r } = await run(
    {
      formal_statement: statement,
      content: `unsafe def f (n : ℕ) : ℕ := n\npartial def g (n : ℕ) : ℕ := n\n${proof}`,
    },
    { types: [types, types] },
  );
  t.same(r.tool_messages.errors, ["Unsafe function 'f' detected", "Unsafe function 'g' detected"]);
  const silent = await run({ formal_statement: statement, content: proof }, { ...same, unanswered: ['main'] });
  t.same(silent.r.tool_messages.errors, ["Declaration 'main': Lean did not say which axioms it uses (no answer)"]);
  const example = await run({ formal_statement: statement, content: `example : True := trivial\n${proof}` }, same);
  t.same([example.r.okay, example.r.tool_messages.errors], [true, []]);
  const twice = await run(
    { formal_statement: statement, content: `${proof}\n${proof}` },
    { ...same, errorMarker: 'rfl' },
  );
  t.same(twice.r.tool_messages.errors, ["Declaration 'main' is incomplete (uses 'sorry' or has errors)"]);
});

t.test('the defeq check restates a def, abbrev or instance with its value only under a `variable`', async (t) => {
  const restated = (src: string) => {
    const f = parseSource(src);
    return /\n((?:axiom|noncomputable def|theorem) axle_expected_0[^\n]*)\n/.exec(
      defeqCheck(f, f.decls[0]!) ?? '',
    )?.[1];
  };
  t.equal(restated('variable (n : ℕ)\ndef d : ℕ := n\n'), 'noncomputable def axle_expected_0 : ℕ := n');
  t.equal(restated('variable (n : ℕ)\nabbrev d : ℕ := n\n'), 'noncomputable def axle_expected_0 : ℕ := n');
  t.equal(
    restated('variable (n : ℕ)\ninstance inst : Inhabited ℕ := ⟨n⟩\n'),
    'noncomputable def axle_expected_0 : Inhabited ℕ := ⟨n⟩',
  );
  t.equal(restated('variable (n : ℕ)\nopaque d : ℕ\n'), 'axiom axle_expected_0 : ℕ');
  // Other commands in force (opens, universes) are no section variables.
  t.equal(restated('open Nat\ndef d : ℕ := 1\n'), 'axiom axle_expected_0 : ℕ');
  t.equal(restated('universe u\ndef d : ℕ := 1\n'), 'axiom axle_expected_0 : ℕ');
});

t.test('verify_proof needs Lean; a Lean failure on the candidate is reported alone, not judged', async (t) => {
  const req = parseToolRequest('verify_proof', { environment: 'x', formal_statement: statement, content: proof });
  t.equal(verify_proof.needsLean(req), true);
  const answer = runner(same);
  const lean = scriptedRunner(() => ({}));
  lean.elaborate = async (env, job, opts) => {
    if (lean.jobs.length === 0) return (lean.jobs.push(job), answer.elaborate(env, job, opts));
    throw new LeanFailure('crashed', 'the REPL exited', '');
  };
  const r = await verify_proof.run(req, toolCtx(lean));
  t.same([r.okay, r.tool_messages.errors], [false, ['Lean failed while elaborating (crashed): the REPL exited']]);
  t.same(r.failed_declarations, []);
});

t.test('the timings are differences of the clock (a fake one: no wall-clock figure is asserted)', async (t) => {
  // A clock that moves one millisecond per reading, from far above zero: every duration is a few
  // readings, while a sum of two readings (a sign error) is near two million.
  const real = performance.now.bind(performance);
  let now = 1_000_000;
  performance.now = () => now++;
  t.teardown(() => {
    performance.now = real;
  });
  const { r } = await run({ formal_statement: statement, content: proof }, same);
  performance.now = real;
  for (const [k, v] of Object.entries(r.timings)) t.ok(v >= 0 && v < 1000, `${k} = ${v}`);
});

t.test('a Lean failure on the statement is reported as the statement’s', async (t) => {
  const answer = runner(same);
  const lean = scriptedRunner(() => ({}));
  lean.elaborate = async (env, job, opts) => {
    if (lean.jobs.push(job) === 1) throw new LeanFailure('crashed', 'the REPL exited', '');
    return answer.elaborate(env, job, opts);
  };
  const req = parseToolRequest('verify_proof', { environment: 'x', formal_statement: statement, content: proof });
  const r = await verify_proof.run(req, toolCtx(lean));
  t.same(r.tool_messages.errors, ['formal_statement: Lean failed while elaborating (crashed): the REPL exited']);
  t.equal(r.okay, false);
});

t.test('mathlib_options reach the candidate’s elaboration only', async (t) => {
  const count = async (mathlib_options: boolean) => {
    const { lean } = await run({ formal_statement: statement, content: proof, mathlib_options }, same);
    return lean.jobs.map((j) => j.commands.length);
  };
  const [off, on] = [await count(false), await count(true)];
  t.equal(on[0], off[0], 'the statement is elaborated without them');
  t.ok(on[1]! > off[1]!, `the candidate is elaborated with them (${off[1]} → ${on[1]} commands)`);
});

t.test('rule 2: every sorried def is irreducible in the defeq check, each a name of its own', async (t) => {
  const stmt = 'def a : ℕ := sorry\ndef b : ℕ := sorry\ntheorem main : a = b := sorry\n';
  const file = parseSource(stmt);
  t.match(
    defeqCheck(file, file.decls[2]!, 0, ['a', 'b']),
    /\nattribute \[local irreducible\] _root_\.a _root_\.b in\n/,
  );
});

t.test("rule 2: a candidate def without the statement's value is reported as having none", async (t) => {
  // `opaque x : ℕ` is an opaque constant without a value (Lean takes an Inhabited instance's default).
  const types = { x: 'ℕ', main: '1 + 1 = 2' };
  const { r } = await run(
    { formal_statement: `opaque x : ℕ := 5\n${statement}`, content: `opaque x : ℕ\n${proof}` },
    { types: [types, types] },
  );
  t.equal(r.okay, false);
  t.same(r.tool_messages.errors, ["Definition 'x' does not match expected signature: expected 5, got (no value)"]);
});

t.test("a Lean error outside every declaration fails the check, with no rule's error", async (t) => {
  const { r } = await run(
    { formal_statement: statement, content: `${proof}#check undefinedThing\n` },
    { ...same, errorMarker: 'undefinedThing' },
  );
  t.same([r.okay, r.tool_messages.errors, r.lean_messages.errors.length], [false, [], 1]);
});

t.test('a refused notation is reported at its line in the candidate as submitted, under ignore_imports', async (t) => {
  // The environment's header is one line; the candidate's own is five (the content read has the environment's).
  const env = environmentConfig.parse({
    name: 'x',
    lean_toolchain: 'leanprover/lean4:v4.28.0',
    imports: 'import Mathlib',
    project_dir: '/tmp',
  });
  const content = `import Mathlib\n\n\n\n\nnotation "X" => 1\n${proof}`;
  for (const ignore_imports of [true, false]) {
    const r = await verify_proof.run(
      parseToolRequest('verify_proof', { environment: 'x', formal_statement: statement, content, ignore_imports }),
      toolCtx(runner(same), env),
    );
    t.match(r.tool_messages.errors[0], /\(notation at line 6\)/, `ignore_imports ${ignore_imports}`);
  }
});
