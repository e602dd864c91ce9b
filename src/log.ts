/** The logger surface the layers below the edge use (satisfied by pino and by fastify's request.log), and the daemon's logger. */
import { pino, type LogFn, type Logger } from 'pino';

export interface Log {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Log;
}

/**
 * The daemon's logger: JSON lines to stdout through pino's asynchronous destination. A
 * synchronous write per line cost the cache-hit path about a quarter of its throughput;
 * asynchronous writes leave the request path and coalesce under load. Same lines, same
 * fields; pino flushes what is buffered when the process exits (on-exit-leak-free).
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level }, pino.destination({ dest: 1, sync: false }));
}
