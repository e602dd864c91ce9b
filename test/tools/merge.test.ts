/** merge with a scripted runner double: `sorry`/`ERR` in a command fail it, `#check` types come from a table per job. */
import t from 'tap';
import { pino } from 'pino';
import type { ElabJob, LeanMessage, LeanRunner } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { merge, SEPARATOR } from '../../src/tools/merge.ts';
import type { ToolContext } from '../../src/tools/types.ts';

const env = environmentConfig.parse({ name: 'x', lean_toolchain: 'leanprover/lean4:v4.28.0', imports: '', project_dir: '/tmp' });

function runner(types: Record<string, string>[] = []): LeanRunner & { jobs: ElabJob[] } {
  const jobs: ElabJob[] = [];
  return {
    jobs,
    async elaborate(_env, job) {
      const n = jobs.push(job) - 1;
      return {
        headerMessages: [], session: 1, reused: 0, sent: job.commands.length,
        commands: job.commands.map((c) => {
          const m: LeanMessage[] = [];
          const check = /^#check @(.+)$/.exec(c.text);
          if (check) m.push({ severity: 'info', pos: c.origin, endPos: undefined, text: `${check[1]} : ${types[n]?.[check[1]!] ?? 'T'}` });
          else if (c.text.startsWith('#print')) m.push({ severity: 'info', pos: c.origin, endPos: undefined, text: `'x' does not depend on any axioms` });
          else if (/\bsorry\b/.test(c.text)) m.push({ severity: 'warning', pos: c.origin, endPos: undefined, text: 'declaration uses `sorry`' });
          else if (c.text.includes('ERR')) m.push({ severity: 'error', pos: c.origin, endPos: undefined, text: 'boom' });
          return { messages: m, sorries: [], cached: false, ms: 0 };
        }),
      };
    },
  };
}
const ctx = (lean: LeanRunner): ToolContext => ({ env, signal: new AbortController().signal, log: pino({ level: 'silent' }), lean, progress: () => {} });
const run = (documents: string[], r: LeanRunner, extra: Record<string, unknown> = {}) => merge.run(parseToolRequest('merge', { documents, environment: 'x', ...extra }), ctx(r));

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
