/** The logger surface the layers below the edge use (satisfied by pino and by fastify's request.log). */
import { pino, type LogFn, type Logger } from 'pino';

export interface Log {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Log;
}

/** The daemon's logger: level from LOG_LEVEL (default info). */
export const rootLogger = (env: NodeJS.ProcessEnv): Logger => pino({ level: env.LOG_LEVEL ?? 'info' });
export const silentLogger = (): Logger => pino({ level: 'silent' });
