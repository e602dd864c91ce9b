/**
 * Issue 23, item 11 (held-out corpus class): a statement continuing on a line that starts
 * with an identifier that is also a tactic keyword (`set l n a = …`) was left un-sorried by
 * theorem2sorry with no message; a declaration the tool cannot handle is named in
 * tool_messages; the layout treats every indented top-level command alike.
 */
import t from 'tap';
import { reprint } from '../../src/tools/layout.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { theorem2sorry } from '../../src/tools/theorem2sorry.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

const run = async (content: string) =>
  theorem2sorry.run(
    parseToolRequest('theorem2sorry', { content, environment: 'x', reparse: false }),
    toolCtx(scriptedRunner(() => ({}))),
  );

t.test('a statement continuing with `set …` (an identifier, a tactic name too) is sorried', async (t) => {
  for (const indent of ['', '  ', '    ']) {
    const r = await run(
      `def set (a b c : Nat) : Nat := a\ntheorem foo (l n a : Nat) :\n${indent}set l n a = l := by\n  simp [set]\n`,
    );
    t.match(r.content, new RegExp(`\\n${indent}set l n a = l := sorry\\n$`), JSON.stringify(indent));
    t.same(r.tool_messages.warnings, []);
  }
});

t.test('a theorem whose proof the model cannot find is named in tool_messages', async (t) => {
  const r = await run('theorem nobody : True\ntheorem b : True := trivial\n');
  t.match(r.content, /theorem b : True := sorry/);
  t.match(r.tool_messages.warnings.join('\n'), /no proof found for 'nobody' \(line 1\); left unchanged/);
});

t.test('indented top-level commands of one scope keep one column, prefixed or not', async (t) => {
  const text =
    'namespace Foo\n\n  theorem a : True := trivial\n  /-- doc -/\n  theorem b : True := trivial\n  -- c\n  theorem c : True := trivial\n  open Nat in\n  theorem e : True := trivial\nend Foo\n';
  const out = reprint(text);
  const columns = out
    .split('\n')
    .filter((l) => /^\s*(theorem|\/--|--|open)/.test(l))
    .map((l) => l.length - l.trimStart().length);
  t.same([...new Set(columns)], [2], `every command line at column 2:\n${out}`);
  t.equal(reprint(out), out, 'idempotent');
});
