/** Process entry: load config, build the app, listen, and drain on SIGTERM/SIGINT. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { ConfigError, loadConfigFiles, shutdownDelayMs, type Config, type LoadedConfig } from './config.ts';
import { listenErrorLine } from './server/listen-error.ts';
import { useDeadlineSignalTimer } from './util/timeout-signal.ts';
import { listeningMessage } from './server/listening-line.ts';

const WARM_WORKERS_AFTER_MS = 300;

/**
 * Settles once the daemon listens. A promise rather than top-level await: the bundle is a
 * CommonJS script (scripts/build.mjs: what V8's code cache can be given on Node 20), and its
 * loader (dist/main.js, scripts/daemon-loader.mjs) writes the cache after this. A failure still
 * rejects unhandled, ending the process as an error thrown at the top level did.
 */
export const started: Promise<void> = start();

async function start(): Promise<void> {
  const { config, files } = configOrExit();
  // Process-wide, as the Node behaviour it works around (config fastPaths.deadlineSignal).
  useDeadlineSignalTimer(config.fastPaths.deadlineSignal);
  const app = await buildApp({ config, hostEnv: process.env });
  app.log.info({ configFiles: files }, `configuration from ${files.join(', ')}`);
  const shutdown = drain(app, config);
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await listen(app, config);
  keepRunningOnStrayRejections(app);
}

/**
 * Once serving, a promise rejected with no handler (a background task's failure: a NATS
 * call during an outage, a best-effort publish) is logged as an error and the daemon keeps
 * serving, instead of Node's default of exiting: one lost background task must not end
 * every request in flight and, on a cluster worker, take its slots out until someone
 * restarts it. Before this point (start-up) a rejection still ends the process.
 */
function keepRunningOnStrayRejections(app: FastifyInstance): void {
  process.on('unhandledRejection', (reason) => {
    app.log.error({ err: reason }, 'unhandled promise rejection (a defect: logged, the daemon keeps serving)');
  });
}

function configOrExit(): LoadedConfig {
  try {
    return loadConfigFiles(process.env);
  } catch (e) {
    // One line naming the setting, not a stack: the operator's mistake, not the daemon's.
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`lean-tool-service: configuration error: ${e.message}\n`);
    process.exit(1);
  }
}

/**
 * The signal handler. SIGTERM first turns readiness to 503 and keeps serving everything for
 * server.shutdownDelayMs, so a load balancer routes elsewhere before anything is refused; then
 * (and at once on SIGINT, or on a second signal) no new requests, in-flight ones finish (up to
 * the drain timeout), then exit.
 */
function drain(app: FastifyInstance, config: Config): (signal: string) => Promise<void> {
  let stopping = false;
  const delay = new AbortController();
  return async (signal) => {
    if (stopping) return delay.abort();
    stopping = true;
    const ms = signal === 'SIGTERM' ? shutdownDelayMs(config) : 0;
    if (ms > 0) {
      app.unready();
      app.log.info({ signal, shutdownDelayMs: ms }, 'shutting down: readiness 503, still serving until the delay ends');
      await sleep(ms, undefined, { signal: delay.signal }).catch(() => {});
    }
    app.log.info({ signal }, 'draining: no new requests; waiting for in-flight ones');
    const force = setTimeout(() => {
      app.log.warn({ drainTimeoutMs: config.server.drainTimeoutMs }, 'drain timeout; exiting with requests unfinished');
      process.exit(1);
    }, config.server.drainTimeoutMs);
    force.unref();
    await app.close();
    app.log.info('stopped');
    // Let the log line reach stdout before exiting; exit at once if nothing else is pending.
    (app.log as { flush?: () => void }).flush?.();
    process.exitCode = 0;
    setTimeout(() => process.exit(0), 200).unref();
  };
}

async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    const address = await app.listen({ host: config.server.host, port: config.server.port });
    // The structural worker threads start a moment after the port opens, not with it: loading
    // piscina (and its glob dependency) on this thread and starting threads that each compile
    // the worker bundle took the CPU the first requests need on 2 cores. A structural request
    // before then starts them itself.
    setTimeout(() => void app.warmWorkers(), WARM_WORKERS_AFTER_MS).unref();
    const summary = app.leanSummary();
    app.log.info({ address, ...summary }, listeningMessage(address, summary));
  } catch (err) {
    // A busy port (or a host without that address): one line naming the setting, no stack.
    const line = listenErrorLine(err, config.server.host, config.server.port);
    if (line) process.stderr.write(`${line}\n`);
    else app.log.fatal({ err }, 'cannot listen');
    process.exit(1);
  }
}
