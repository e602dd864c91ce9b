// StrykerJS over the code that decides a verdict (`npm run mutate`; docs/mutation.md). Not part of
// `npm test`: each mutant reruns the test files that cover it.
//
// The tap runner runs each test file with plain node and these arguments (it does not use tap's own
// runner), so TypeScript goes through the same loader as the tests (scripts/ts/register.mjs).
// Per-test coverage tells Stryker which files cover a mutant; only those rerun for it.
import { VERDICT_FILES, VERDICT_TESTS } from './scope.mjs';

export default {
  testRunner: 'tap',
  tap: {
    testFiles: VERDICT_TESTS,
    nodeArgs: ['--import', './scripts/ts/register.mjs'],
    forceBail: true,
  },
  plugins: ['@stryker-mutator/tap-runner'],
  mutate: VERDICT_FILES,
  coverageAnalysis: 'perTest',
  // Two cores here: one test process per core.
  concurrency: 2,
  // A mutant can turn a loop endless; the slowest covering file takes a few seconds on a busy machine.
  timeoutMS: 20000,
  timeoutFactor: 2,
  ignoreStatic: true,
  reporters: ['json', 'clear-text', 'progress'],
  jsonReporter: { fileName: '.cache/mutation/mutation.json' },
  tempDirName: '.cache/stryker-tmp',
  cleanTempDir: 'always',
  // The sandbox copy of the project must not be the one the tests look for ../shared beside.
  ignorePatterns: ['/bench/results', '/docs', '/dist', '/.cache', '/deploy', '/examples'],
};
