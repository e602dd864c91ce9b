/** merge with a scripted runner double: `sorry`/`ERR` in a command fail it, `#check` types come from a table per job. */
import t from 'tap';
import type { LeanRunner } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { merge, SEPARATOR } from '../../src/tools/merge.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const runner = (types: Record<string, string>[] = []) => scriptedRunner((c, n) => {
  const check = /^#check @(.+)$/.exec(c.text);
  if (check) return { messages: [msg('info', c.origin, `${check[1]} : ${types[n]?.[check[1]!] ?? 'T'}`)] };
  if (c.text.startsWith('#print')) return { messages: [msg('info', c.origin, `'x' does not depend on any axioms`)] };
  if (/\bsorry\b/.test(c.text)) return { messages: [msg('warning', c.origin, 'declaration uses `sorry`')] };
  if (c.text.includes('ERR')) return { messages: [msg('error', c.origin, 'boom')] };
  return {};
});
const run = (documents: string[], r: LeanRunner, extra: Record<string, unknown> = {}) => merge.run(parseToolRequest('merge', { documents, environment: 'x', ...extra }), toolCtx(r));

t.test('non-declaration commands grouped per input; equal declarations merged; a compiling version preferred', async (t) => {
  const r = await run([
    'open Nat\ndef a : Nat := 1\ntheorem t : a = 1 := sorry\n',
    'open Real\ndef a : Nat := 1\ntheorem t : a = 1 := rfl\n',
  ], runner());
  t.equal(r.content, `${SEPARATOR}\n-- document 0\nopen Nat\n\n${SEPARATOR}\n-- document 1\nopen Real\n\ndef a : Nat := 1\n\ntheorem t : a = 1 := rfl\n`);
  t.match(r.tool_messages.infos.join('\n'), /'t': 2 versions merged \(kept the one from document 1\)/);
});

t.test('the same name with another statement is renamed in its input, references included', async (t) => {
  const types: Record<string, string>[] = [{ u: '1 = 1' }, { u: '2 = 2', v: 'True' }];
  const r = await run(['theorem u : 1 = 1 := rfl\n', 'theorem u : 2 = 2 := rfl\ntheorem v : True := by\n  have := u\n  trivial\n'], runner(types));
  t.match(r.content, /theorem u : 1 = 1 := rfl/);
  t.match(r.content, /theorem u_1 : 2 = 2 := rfl/);
  t.match(r.content, /have := u_1/);
  t.match(r.tool_messages.infos.join('\n'), /'u' in document 1 states something else than the earlier one: renamed to 'u_1'/);
});

t.test('with no successful version, the first is kept and the others follow as comments', async (t) => {
  const r = await run(['theorem w : 3 = 3 := by\n  sorry\n', 'theorem w : 3 = 3 := by\n  exact ERR\n'], runner());
  t.equal(r.content, 'theorem w : 3 = 3 := by\n  sorry\n\n-- unsuccessful attempt (document 1)\n/-\ntheorem w : 3 = 3 := by\n  exact ERR\n-/\n');
  const alts = await run(['theorem w : 3 = 3 := rfl\n', 'theorem w : 3 = 3 := by decide\n'], runner(), { include_alts_as_comments: true });
  t.match(alts.content, /theorem w : 3 = 3 := rfl\n\n-- alternative \(document 1\)\n\/-\ntheorem w : 3 = 3 := by decide\n-\//);
});

t.test('declarations come in a topological order of their dependencies; namespaces are normalized first', async (t) => {
  const r = await run(['theorem uses : N.b = 2 := rfl\n', 'namespace N\ndef b : Nat := 2\nend N\n'], runner());
  t.equal(r.content, 'def N.b : Nat := 2\n\ntheorem uses : N.b = 2 := rfl\n');
});
