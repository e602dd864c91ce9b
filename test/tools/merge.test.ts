/** merge with a scripted runner double: `sorry`/`ERR` in a command fail it, `#check` types come from a table per job. */
import t from 'tap';
import type { LeanRunner } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { merge, SEPARATOR } from '../../src/tools/merge.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

// `at`: Lean prints `@name : …` for constants with implicit arguments (recorded: batteries `#check @vec_of_some`).
const runner = (types: Record<string, string>[] = [], at = false) =>
  scriptedRunner((c, n) => {
    const check = /^set_option pp\.fullNames true in\n(?:set_option [^\n]* in\n)*#check @(.+)$/.exec(c.text);
    if (check)
      return { messages: [msg('info', c.origin, `${at ? '@' : ''}${check[1]} : ${types[n]?.[check[1]!] ?? 'T'}`)] };
    const ax = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/.exec(c.text);
    if (ax) return { messages: [msg('info', c.origin, `'${ax[1]}' does not depend on any axioms`)] };
    if (/\bsorry\b/.test(c.text)) return { messages: [msg('warning', c.origin, 'declaration uses `sorry`')] };
    if (c.text.includes('ERR')) return { messages: [msg('error', c.origin, 'boom')] };
    return {};
  });
const run = (documents: string[], r: LeanRunner, extra: Record<string, unknown> = {}) =>
  merge.run(parseToolRequest('merge', { documents, environment: 'x', ...extra }), toolCtx(r));

t.test(
  'non-declaration commands grouped per input; equal declarations merged; a compiling version preferred',
  async (t) => {
    const r = await run(
      [
        'open Nat\ndef a : Nat := 1\ntheorem t : a = 1 := sorry\n',
        'open Real\ndef a : Nat := 1\ntheorem t : a = 1 := rfl\n',
      ],
      runner(),
    );
    t.equal(
      r.content,
      `${SEPARATOR}\n-- document 0\nopen Nat\n\n${SEPARATOR}\n-- document 1\nopen Real\n\ndef a : Nat := 1\n\ntheorem t : a = 1 := rfl\n`,
    );
    t.match(r.tool_messages.infos.join('\n'), /'t': 2 versions merged \(kept the one from document 1\)/);
  },
);

t.test('the same name with another statement is renamed in its input, references included', async (t) => {
  const types: Record<string, string>[] = [{ u: '1 = 1' }, { u: '2 = 2', v: 'True' }];
  const r = await run(
    ['theorem u : 1 = 1 := rfl\n', 'theorem u : 2 = 2 := rfl\ntheorem v : True := by\n  have := u\n  trivial\n'],
    runner(types),
  );
  t.match(r.content, /theorem u : 1 = 1 := rfl/);
  t.match(r.content, /theorem u_1 : 2 = 2 := rfl/);
  t.match(r.content, /have := u_1/);
  t.match(
    r.tool_messages.infos.join('\n'),
    /'u' in document 1 states something else than the earlier one: renamed to 'u_1'/,
  );
});

t.test('with no successful version, the first is kept and the others follow as comments', async (t) => {
  const r = await run(['theorem w : 3 = 3 := by\n  sorry\n', 'theorem w : 3 = 3 := by\n  exact ERR\n'], runner());
  t.equal(
    r.content,
    'theorem w : 3 = 3 := by\n  sorry\n\n-- unsuccessful attempt (document 1)\n/-\ntheorem w : 3 = 3 := by\n  exact ERR\n-/\n',
  );
  const alts = await run(['theorem w : 3 = 3 := rfl\n', 'theorem w : 3 = 3 := by decide\n'], runner(), {
    include_alts_as_comments: true,
  });
  t.match(
    alts.content,
    /theorem w : 3 = 3 := rfl\n\n-- alternative \(document 1\)\n\/-\ntheorem w : 3 = 3 := by decide\n-\//,
  );
});

t.test('declarations come in a topological order of their dependencies; namespaces are normalized first', async (t) => {
  const r = await run(['theorem uses : N.b = 2 := rfl\n', 'namespace N\ndef b : Nat := 2\nend N\n'], runner());
  t.equal(r.content, 'def N.b : Nat := 2\n\ntheorem uses : N.b = 2 := rfl\n');
});

t.test('rule 5: theorems with equivalent types under different names are merged; references follow', async (t) => {
  const types: Record<string, string>[] = [
    { "add_comm'": '∀ (n m : ℕ), n + m = m + n' },
    { my_comm: '∀ (a b : ℕ), a + b = b + a', uses: '1 + 2 = 2 + 1' },
  ];
  const r = await run(
    [
      "theorem add_comm' (n m : Nat) : n + m = m + n := Nat.add_comm n m\n",
      'theorem my_comm (a b : Nat) : a + b = b + a := by omega\ntheorem uses : 1 + 2 = 2 + 1 := my_comm 1 2\n',
    ],
    runner(types),
  );
  t.equal(
    r.content,
    "theorem add_comm' (n m : Nat) : n + m = m + n := Nat.add_comm n m\n\ntheorem uses : 1 + 2 = 2 + 1 := add_comm' 1 2\n",
  );
  t.match(
    r.tool_messages.infos.join('\n'),
    /theorems 'add_comm'', 'my_comm' state the same type: merged as 'add_comm''/,
  );
});

t.test('rule 5 keeps the compiling version under the merged name; different types stay apart', async (t) => {
  const types: Record<string, string>[] = [{ a: '∀ (n : ℕ), n = n', z: '∀ (n : ℤ), n = n' }, { b: '∀ (k : ℕ), k = k' }];
  const r = await run(
    [
      'theorem a (n : Nat) : n = n := sorry\ntheorem z (n : Int) : n = n := rfl\n',
      'theorem b (k : Nat) : k = k := fun _ => rfl\n',
    ],
    runner(types),
  );
  t.match(r.content, /theorem a \(k : Nat\) : k = k := fun _ => rfl/, 'the clean version, renamed to the first name');
  t.notMatch(r.content, /theorem b\b/);
  t.match(r.content, /theorem z \(n : Int\) : n = n := rfl/, 'an Int statement is not a Nat one');
  t.notMatch(r.content, /:= sorry/, 'the sorried version is dropped');
});

t.test('rule 5 with use_def_eq false compares the written signatures up to binder names', async (t) => {
  const r = await run(
    [
      'theorem p (x : Nat) : x + 0 = x := rfl\n',
      'theorem q (y : Nat) : y + 0 = y := rfl\ntheorem r0 (y : Nat) : 0 + y = y := by simp\n',
    ],
    runner(),
    { use_def_eq: false },
  );
  t.match(r.content, /theorem p \(x : Nat\)/);
  t.notMatch(r.content, /theorem q\b/);
  t.match(r.content, /theorem r0 /);
});

t.test("rule 5 sees step 3 renames: a type mentioning a renamed def is not the other input's type", async (t) => {
  const types: Record<string, string>[] = [
    { u: 'ℕ', t: 'u = u' },
    { u: 'ℕ', s: 'u = u' },
  ];
  const r = await run(
    ['def u : Nat := 1\ntheorem t : u = u := rfl\n', 'def u : Nat := 2\ntheorem s : u = u := rfl\n'],
    runner(types),
  );
  t.match(r.content, /theorem t : u = u := rfl/);
  t.match(r.content, /theorem s : u_1 = u_1 := rfl/);
  t.notMatch(r.tool_messages.infos.join('\n'), /same type/);
});

t.test("a renamed theorem's type is the one Lean printed under its first name (rule 5 after rule 3)", async (t) => {
  // Document 1's `u` states something else than document 0's, so rule 3 renames it `u_1`; Lean printed
  // its type as `u : 2 = 2`, which must read as `2 = 2` to match `w` under rule 5.
  const types: Record<string, string>[] = [{ u: '1 = 1', w: '2 = 2' }, { u: '2 = 2' }];
  const r = await run(
    ['theorem u : 1 = 1 := rfl\ntheorem w : 2 = 2 := rfl\n', 'theorem u : 2 = 2 := rfl\n'],
    runner(types),
  );
  t.match(
    r.tool_messages.infos.join('\n'),
    /'u' in document 1 states something else than the earlier one: renamed to 'u_1'/,
  );
  t.match(r.tool_messages.infos.join('\n'), /theorems 'w', 'u_1' state the same type: merged as 'w'/);
});

// Issue 27, defect 11: `#check @name` prints `@name : …` for constants with implicit arguments; rule 5 compares the types.
t.test('rule 5 merges equivalent types printed as `@name : …`', async (t) => {
  const types: Record<string, string>[] = [{ a: '∀ {n : ℕ}, n = n' }, { b: '∀ {n : ℕ}, n = n' }];
  const r = await run(
    ['theorem a {n : ℕ} : n = n := rfl\n', 'theorem b {n : ℕ} : n = n := rfl\n'],
    runner(types, true),
    { use_def_eq: true },
  );
  t.equal((r.content.match(/theorem /g) ?? []).length, 1, r.content);
});
