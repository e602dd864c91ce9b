/** The comparator tool: names from the formal statement, missing builds, and the response fields (process double). */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ComparatorBackend } from '../../src/backend/comparator/runner.ts';
import { NO_LIMITS } from '../../src/backend/process/launch.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { comparatorConfig } from '../../src/envs/comparator-config.ts';
import { isServiceError } from '../../src/errors.ts';
import { comparatorTool, statementTargets } from '../../src/tools/comparator.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-comparator.mjs');
const backend = (exists: (f: string) => boolean = () => true) =>
  new ComparatorBackend({
    root: '/r',
    config: comparatorConfig.parse({
      pins: { 'v4.28.0': { comparator: 'a'.repeat(40), lean4export: 'b'.repeat(40) } },
    }),
    sandbox: 'none',
    limits: NO_LIMITS,
    exists,
    parentEnv: process.env,
    tmpDir: mkdtempSync(path.join(os.tmpdir(), 'cmp-tool-')),
    command: (i) => ({
      argv: [process.execPath, FAKE],
      cwd: i.workspace,
      env: { PATH: process.env.PATH ?? '' },
      readOnly: [],
      writable: i.workspace,
    }),
  });
const ctx = toolCtx(scriptedRunner(() => ({})));
const request = (formal_statement: string, content: string, extra: Record<string, unknown> = {}) =>
  parseToolRequest('comparator', { formal_statement, content, environment: 'x', ...extra });

t.test('theorem names (full names) and sorried definitions come from the formal statement', async (t) => {
  const s = statementTargets(
    'def answer : Nat := sorry\ndef fixed : Nat := 3\nnamespace N\ntheorem t : answer = 3 := by sorry\nlemma u : True := sorry\nend N\n',
  );
  t.same(s.theoremNames, ['N.t', 'N.u']);
  t.same(s.definitionNames, ['answer']);
});

t.test('a passing run: okay, exit status, validated names and timings', async (t) => {
  const r = await comparatorTool(backend()).run(
    request('theorem a : True := sorry\n', '-- FAKE: okay\ntheorem a : True := trivial\n'),
    ctx,
  );
  t.equal(r.okay, true);
  t.equal(r.exit_status, 0);
  t.same(r.validated_theorem_names, ['a']);
  t.same(Object.keys(r.timings).sort(), ['comparator_ms', 'extract_theorems_ms', 'total_ms']);
  t.match(r.output, '"theorem_names":["a"]');
});

t.test('a failing run validates nothing', async (t) => {
  const r = await comparatorTool(backend()).run(request('theorem a : True := sorry\n', '-- FAKE: fail\n'), ctx);
  t.equal(r.okay, false);
  t.equal(r.exit_status, 1);
  t.same(r.validated_theorem_names, []);
});

t.test(
  'without the builds: environment_unavailable naming what is missing; without a theorem: invalid_request',
  async (t) => {
    const tool = comparatorTool(backend((f) => !f.endsWith('/comparator')));
    const e = await tool.run(request('theorem a : True := sorry\n', ''), ctx).catch((x: unknown) => x);
    t.ok(isServiceError(e) && e.code === 'environment_unavailable');
    t.match((e as Error).message, /missing the comparator build .*comparator-v4\.28\.0/);
    const none = await comparatorTool(backend())
      .run(request('def d : Nat := 1\n', ''), ctx)
      .catch((x: unknown) => x);
    t.ok(isServiceError(none) && none.code === 'invalid_request');
  },
);

t.test('memory_limit_mb is validated as a positive integer', async (t) => {
  t.throws(() => request('theorem a : True := sorry\n', '', { memory_limit_mb: 0 }));
  t.throws(() => request('theorem a : True := sorry\n', '', { memory_limit_mb: 1.5 }));
  t.equal(request('theorem a : True := sorry\n', '', { memory_limit_mb: 512 }).memory_limit_mb, 512);
});

// Issue 27, defect 2: comparator exits 1 for a setup failure too (config.json it cannot read, no git, a
// broken sandbox), before it builds the solution; only a verdict on the pair may be cached.
t.test('only a verdict is cacheable: a run that fails before the solution is built is not', async (t) => {
  const tool = comparatorTool(backend());
  const run = (mode: string) => tool.run(request('theorem a : True := sorry\n', `-- FAKE: ${mode}\n`), ctx);
  const early = await run('fail');
  t.equal(early.exit_status, 1);
  t.equal(tool.cacheable!(early), false, 'exit 1 before `Building Solution`: a setup failure');
  const verdict = await run('mismatch');
  t.equal(verdict.exit_status, 1);
  t.equal(verdict.okay, false);
  t.equal(tool.cacheable!(verdict), true, 'exit 1 after the solution was built: a verdict');
  t.equal(tool.cacheable!(await run('okay')), true, 'okay');
  t.equal(tool.cacheable!(await run('unknown-mode')), false, 'another exit status');
});
