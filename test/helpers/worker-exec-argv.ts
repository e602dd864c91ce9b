/**
 * Worker threads started by a test process do not inherit tap's own `--import` hooks.
 *
 * A worker thread inherits its parent's `execArgv` unless given one, and Piscina (the
 * structural and plan pools) gives none. Under tap that is `@tapjs/mock`'s and
 * `@tapjs/processinfo`'s loader hooks besides the project's own flags: every module a worker
 * thread loads then goes through both, ~0.5 s more CPU per thread (test/workers/lean-port's
 * first test, four threads: 2.7 s of CPU under plain node, 4.7 s with tap's flags, 2.5 s with
 * this module). None is used in a worker (coverage is off; no test mocks inside one), and
 * `@tapjs/typescript`'s would load ts-node there: it skips only while TAP_TYPE_STRIP_ONLY=1
 * (package.json `"tap"."test-env"`), which that plugin resets to 0 in the test process on Node < 22.
 *
 * Piscina reads `Worker` from node:worker_threads when it starts a thread, so replacing the
 * export with a subclass that passes the filtered flags reaches it. Outside tap (no such
 * flags) this does nothing. Imported by scripts/ts/register.mjs in every test process under tap
 * (before any test file, so also for the threads of pools a test builds itself). A flag
 * Node refuses in a worker's explicit execArgv (a per-process one, e.g. --max-old-space-size in
 * tap's node-arg) would fail the thread's start loudly (ERR_WORKER_INVALID_EXEC_ARGV), never silently.
 */
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

const TAP_HOOK = /@tapjs\//;
const own = process.execArgv.filter((a) => !TAP_HOOK.test(a));

if (own.length < process.execArgv.length && !(workerThreads.Worker as { plain?: true }).plain) {
  const Inherited = workerThreads.Worker;
  class Worker extends Inherited {
    static plain = true as const;
    constructor(filename: string | URL, options: workerThreads.WorkerOptions = {}) {
      super(filename, { ...options, execArgv: options.execArgv ?? own });
    }
  }
  workerThreads.Worker = Worker;
  syncBuiltinESMExports();
}
