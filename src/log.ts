/** The logger surface the layers below the edge use (satisfied by pino and by fastify's request.log). */
import type { LogFn } from 'pino';

export interface Log {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Log;
}
