/**
 * Tests written against the surviving mutants of src/tools/comparator.ts (docs/mutation.md): the
 * definition-holes refusal, the statement's targets, the memory cap passed on, and the timings.
 * The comparator process is the test double test/fixtures/fake-comparator.mjs; what comparator does
 * with definition holes is from its README ("Definition Holes", comparator v4.30.0).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ComparatorBackend, type ComparatorBackendOptions } from '../../src/backend/comparator/runner.ts';
import { NO_LIMITS } from '../../src/backend/process/launch.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { comparatorConfig } from '../../src/envs/comparator-config.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { ServiceError } from '../../src/errors.ts';
import { comparatorTool, statementTargets } from '../../src/tools/comparator.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-comparator.mjs');
const PIN = { comparator: 'a'.repeat(40), lean4export: 'b'.repeat(40) };
const memories: number[] = [];
const backend = () =>
  new ComparatorBackend({
    root: '/r',
    config: comparatorConfig.parse({ pins: { 'v4.28.0': PIN, 'v4.30.0': PIN }, defaultMemoryMb: 777 }),
    sandbox: 'none',
    limits: NO_LIMITS,
    exists: () => true,
    parentEnv: process.env,
    tmpDir: mkdtempSync(path.join(os.tmpdir(), 'cmp-mut-')),
    command: (i) => {
      memories.push(i.memoryMb);
      return {
        argv: [process.execPath, FAKE],
        cwd: i.workspace,
        env: { PATH: process.env.PATH ?? '' },
        readOnly: [],
        writable: i.workspace,
      };
    },
  } satisfies ComparatorBackendOptions);
const ctx = toolCtx(scriptedRunner(() => ({})));
const request = (formal_statement: string, content: string, extra: Record<string, unknown> = {}) =>
  parseToolRequest('comparator', { formal_statement, content, environment: 'x', ...extra });
const refusal = (statement: string) =>
  comparatorTool(backend())
    .run(request(statement, '-- FAKE: okay\n'), ctx)
    .then(
      () => undefined,
      (e: unknown) => e as ServiceError,
    );
const HOLE_TAIL =
  '); comparator v4.28.0, pinned for environment x, has none (they came with v4.30.0) and rejects a solution that ' +
  'fills one its theorems use: use an environment at Lean v4.30.0 or later';

t.test(
  'a sorried definition at a pin without definition holes is refused, with the exact message and details',
  async (t) => {
    const e = await refusal('def answer : Nat := sorry\ntheorem a : answer = answer := rfl\n');
    t.ok(e instanceof ServiceError, 'refused before anything runs');
    t.equal(e!.code, 'invalid_request');
    t.equal(e!.message, `formal_statement has definition holes (sorried definitions: answer${HOLE_TAIL}`);
    t.same(e!.details, [
      { field: 'formal_statement', message: 'has definition holes, which comparator v4.28.0 lacks' },
    ]);
  },
);

t.test('the names in the refusal: more than 100 characters are cut at 100, exactly 100 are kept', async (t) => {
  const defs = (names: string[]) =>
    names.map((n) => `def ${n} : Nat := sorry\n`).join('') + 'theorem a : True := trivial\n';
  const long = ['a'.repeat(60), 'b'.repeat(60)];
  const cut = await refusal(defs(long));
  t.equal(
    cut!.message,
    `formal_statement has definition holes (sorried definitions: ${long.join(', ').slice(0, 100)}…${HOLE_TAIL}`,
  );
  const hundred = ['c'.repeat(49), 'd'.repeat(49)]; // 49 + ", " + 49 = 100 characters
  const kept = await refusal(defs(hundred));
  t.equal(
    kept!.message,
    `formal_statement has definition holes (sorried definitions: ${hundred.join(', ')}${HOLE_TAIL}`,
  );
});

t.test('at a pin with definition holes (v4.30.0) the same statement runs', async (t) => {
  const env = environmentConfig.parse({
    name: 'y',
    lean_toolchain: 'leanprover/lean4:v4.30.0',
    imports: '',
    project_dir: '/tmp',
  });
  const r = await comparatorTool(backend()).run(
    request('def answer : Nat := sorry\ntheorem a : True := trivial\n', '-- FAKE: okay\n'),
    {
      ...ctx,
      env,
    },
  );
  t.equal(r.okay, true);
  t.match(r.output, '"definition_names":["answer"]');
});

t.test(
  'a toolchain without a version tag (a nightly) is not refused: which comparator it has is unknown here',
  async (t) => {
    const env = environmentConfig.parse({
      name: 'n',
      lean_toolchain: 'leanprover/lean4:nightly-2025-01-01',
      imports: '',
      project_dir: '/tmp',
    });
    const e = await comparatorTool(backend())
      .run(request('def answer : Nat := sorry\ntheorem a : True := trivial\n', '-- FAKE: okay\n'), { ...ctx, env })
      .then(
        () => undefined,
        (x: unknown) => x as ServiceError,
      );
    t.not(e?.message.includes('definition holes'), true, 'no definition-holes refusal');
  },
);

t.test('a statement without a theorem: the exact details', async (t) => {
  const e = await refusal('def d : Nat := 1\n');
  t.equal(e!.code, 'invalid_request');
  t.equal(e!.message, 'formal_statement declares no theorem for comparator to check');
  t.same(e!.details, [{ field: 'formal_statement', message: 'declares no theorem' }]);
});

t.test(
  'sorried abbrev and opaque are holes; a body that only contains sorry is not; a body-less opaque is not',
  async (t) => {
    const s = statementTargets(
      'abbrev a : Nat := sorry\nopaque o : Nat := by sorry\ndef p : Nat := sorry + 1\ndef q : Nat := id sorry\nopaque e : Nat\ntheorem t : True := trivial\n',
    );
    t.same(s.definitionNames, ['a', 'o']);
    t.same(s.theoremNames, ['t']);
  },
);

t.test('needsLean is true: the toolchain and project must be there', async (t) => {
  t.equal(comparatorTool(backend()).needsLean(request('theorem a : True := sorry\n', '')), true);
});

t.test('the memory cap: the request’s, else the configured default', async (t) => {
  memories.length = 0;
  const tool = comparatorTool(backend());
  await tool.run(request('theorem a : True := sorry\n', '-- FAKE: okay\n'), ctx);
  await tool.run(request('theorem a : True := sorry\n', '-- FAKE: okay\n', { memory_limit_mb: 512 }), ctx);
  t.same(memories, [777, 512]);
});

t.test('timings are differences of the clock (a stepped fake clock, no wall-clock)', async (t) => {
  const real = performance.now.bind(performance);
  let tick = 1e9;
  // Each call advances 1 ms: total_ms counts the calls between the first and the last in run().
  performance.now = () => (tick += 1);
  t.teardown(() => {
    performance.now = real;
  });
  const r = await comparatorTool(backend()).run(request('theorem a : True := sorry\n', '-- FAKE: okay\n'), ctx);
  performance.now = real;
  t.equal(r.timings.extract_theorems_ms, 1);
  t.ok(r.timings.total_ms! < 1e6, `total_ms ${r.timings.total_ms} is a difference, not a sum of clock readings`);
});
