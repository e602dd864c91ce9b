/** Test helpers: a daemon built from an in-memory config, with injectable tools and probe. */
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../src/app.ts';
import { configSchema, type ConfigInput } from '../src/config.ts';
import { emptyMessages } from '../src/contract/common.ts';
import type { ToolName, ToolResponse } from '../src/contract/tools.ts';
import type { Probe } from '../src/envs/registry.ts';
import { fakeLaunch } from './backend/fake.ts';

export const TEST_ENV = 'lean-test';
export const UNAVAILABLE_ENV = 'lean-missing';

export const testEnvironments = [
  {
    name: TEST_ENV,
    lean_toolchain: 'leanprover/lean4:v4.28.0',
    imports: 'import Mathlib',
    description: 'test',
    project_dir: '/nonexistent/test',
  },
  {
    name: UNAVAILABLE_ENV,
    lean_toolchain: 'leanprover/lean4:v4.28.0',
    imports: '',
    description: 'never available',
    project_dir: '/nonexistent/missing',
  },
];

/** TEST_ENV is "available" (no Lean runs in these tests: the tools are injected). */
export const testProbe: Probe = (cfg) =>
  cfg.name === TEST_ENV ? { available: true } : { available: false, reason: 'no Lean toolchain found (test)' };

/**
 * Test config: one worker thread, no warm sessions unless a test asks (the fake REPL starts on demand), and a
 * short grace after a deadline before a command the fake REPL does not stop is killed.
 */
export function testConfig(over: Partial<ConfigInput> = {}) {
  return configSchema.parse({
    environments: testEnvironments,
    ...over,
    lean: { minWarm: 0, killGraceSeconds: 0.2, ...over.lean },
    // One structural worker thread per test daemon: each thread loads the sources (~0.5 s of
    // CPU), and a test run builds hundreds of daemons (test/server/structural-workers.test.ts
    // covers the pool itself).
    workers: { threads: 1, ...over.workers },
    // Test daemons have one caller: hits are marked (x-cache, the stream's `cache`), which the tests read.
    server: { cacheStatus: true, ...over.server },
  });
}

/**
 * A daemon whose "available" test environment runs the fake REPL test double: enough to
 * exercise HTTP, admission, pools and streaming. It produces no Lean results.
 */
export async function makeApp(
  opts: Partial<AppOptions> & { config?: ReturnType<typeof testConfig> } = {},
): Promise<FastifyInstance> {
  const app = await buildApp({
    logger: false,
    probe: testProbe,
    launch: () => fakeLaunch(),
    // No reserve thread: its ~0.5 s of CPU (loading the sources) per daemon bought nothing in tests with one
    // caller. The tests of fair sharing between callers pass `workerReserve: 1` (the daemon's default).
    workerReserve: 0,
    ...opts,
    config: opts.config ?? testConfig(),
  });
  await app.ready();
  return app;
}

/** A minimal valid request per tool. */
export function validRequest(tool: ToolName, environment = TEST_ENV): Record<string, unknown> {
  const content = 'theorem foo : 1 + 1 = 2 := by\n  norm_num\n';
  switch (tool) {
    case 'merge':
      return { documents: [content, 'theorem bar : True := trivial\n'], environment };
    case 'verify_proof':
    case 'comparator':
      return { formal_statement: 'theorem foo : 1 + 1 = 2 := by\n  sorry\n', content, environment };
    case 'rename':
      return { content, environment, declarations: { foo: 'foo2' } };
    default:
      return { content, environment };
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A transform's clean answer: `content` and no messages, as the doubles of the HTTP and client tests return it. */
export const contentResult = (content: string) => ({
  content,
  lean_messages: emptyMessages(),
  tool_messages: emptyMessages(),
  timings: { total_ms: 0 },
});

/** A clean `check` answer for `content`, as the doubles of the admission and client tests return it. */
export const checkResult = (content: string): ToolResponse<'check'> => ({
  okay: true,
  ...contentResult(content),
  failed_declarations: [],
});
