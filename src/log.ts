/** The logger surface the layers below the edge use (satisfied by pino and by fastify's request.log), and the daemon's logger. */
import { pino, type LogFn, type Logger } from 'pino';

export interface Log {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Log;
}

/** Lines wait at most this long in the buffer when traffic is too low to fill it. */
export const LOG_FLUSH_MS = 500;

/**
 * The daemon's logger: JSON lines to stdout through pino's asynchronous destination,
 * buffered up to 4 KiB. A synchronous write per line cost the cache-hit path about a
 * quarter of its throughput; buffered asynchronous writes take one system call per ~20
 * lines, off the request path. Same lines, same fields, at most LOG_FLUSH_MS late; pino
 * flushes what is buffered when the process exits (on-exit-leak-free).
 */
export function createLogger(level: string): Logger {
  const dest = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => dest.flush(), LOG_FLUSH_MS).unref();
  return pino({ level }, dest);
}

/** The daemon's logger at the level LOG_LEVEL names in `env` (default info). */
export const rootLogger = (env: NodeJS.ProcessEnv): Logger => createLogger(env.LOG_LEVEL ?? 'info');
export const silentLogger = (): Logger => pino({ level: 'silent' });
