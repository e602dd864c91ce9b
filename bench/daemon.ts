/**
 * The daemon as the bench runs it: its own process, the default configuration (pino at
 * info, one log line per request to stdout) plus the bench's overlay, in front of the
 * fake REPL test double (there is no Lean here; BENCH_REPL names another stand-in) with availability forced on.
 * Prints `BENCH_READY <port>` on stderr once listening with its worker threads up.
 */
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { fakeReplLaunch } from './fake-repl.ts';

// LEAN_TOOL_CONFIG names the bench's overlay: the same loading path as `npm start`.
const config = loadConfig(process.env);
const app = await buildApp({
  config,
  probe: () => ({ available: true }),
  // BENCH_REPL: another REPL stand-in speaking the same protocol (bench/cost-repl.mjs).
  launch: (e) => fakeReplLaunch(e, undefined, process.env.BENCH_REPL || undefined),
});
await app.listen({ host: '127.0.0.1', port: 0 });
// As the daemon's entry does (src/main.ts), and before the bench measures: worker threads that
// load the sources during a measured run would be counted in the daemon's CPU.
await app.warmWorkers();
process.stderr.write(`BENCH_READY ${(app.server.address() as { port: number }).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
// The bench asks for the heap's breakdown (RSS alone does not say what holds the memory).
process.on('SIGUSR2', () => {
  // With --expose-gc (diagnosis only): what is live, not what awaits collection.
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  process.stderr.write(`BENCH_MEMORY ${JSON.stringify(m)}\n`);
});
