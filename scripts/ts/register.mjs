// `node --import ./scripts/ts/register.mjs file.ts`: runs TypeScript through the compile cache
// (hooks.mjs). Used by the tests (package.json "tap"."node-arg") instead of tsx.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);

// Under tap: tap's @tapjs/processinfo (loaded before this file in every test process) adds its
// own `--import` to the NODE_OPTIONS of every child process the test starts (a fake REPL, a
// daemon, a script), so each child records which files it loaded, for coverage and `tap
// --changed`. This project runs tap without coverage, and each Node child paid ~0.15–0.25 s of
// CPU for it (a loader thread and a line-length table of every module it loads): about half of
// test/backend/pool.test.ts's CPU. Its hook is dropped here; the test process itself is still
// recorded. The hook list is process-on-spawn's documented global singleton.
const spawnHooks = globalThis[Symbol.for('process-on-spawn@*:singletonId')];
if (spawnHooks && Array.isArray(spawnHooks.listeners)) spawnHooks.listeners = [];
// A child given `{ ...process.env }` would still inherit the hook through NODE_OPTIONS, which tap set
// for this process (the test's daemon child took 7–25 s to start under load with it, ~1 s without).
if (process.env.NODE_OPTIONS?.includes('@tapjs/processinfo'))
  process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(
    /"?--import=\S*@tapjs\/processinfo\S*?"?(\s|$)/g,
    '',
  ).trim();
// Under tap, the worker threads a test starts (the daemon's pools) drop tap's own `--import` hooks too
// (test/helpers/worker-exec-argv.ts says what they cost).
if (process.execArgv.some((a) => a.includes('@tapjs/'))) await import('../../test/helpers/worker-exec-argv.ts');
