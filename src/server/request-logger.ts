/**
 * fastify's per-request logger (`request.log`, `reply.log`), made only when something logs
 * through it. fastify's default factory makes a pino child with the request's `reqId` for every
 * request (`logger.child(bindings, {})`: with an options object pino takes its slow path and
 * rebuilds the formatters), a visible share of a miss's CPU and memory; the daemon's request line is written
 * from the request itself (src/server/request-log.ts), so most requests never log through it.
 * Here each request gets a small object that makes that very child, with the same bindings and
 * options, on its first line (or `child`, or a change of level): the lines are the same.
 */
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Call = (...args: unknown[]) => void;
/** pino's level check (fastify's logger is pino's, wrapped). */
type Checked = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

export class RequestLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined;
  readonly #parent: Checked;
  readonly #bindings: Bindings;
  readonly #opts: ChildLoggerOptions;

  constructor(parent: Checked, bindings: Bindings, opts: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }

  /** The child fastify's default factory would have made, made now. */
  #logger(): FastifyBaseLogger {
    return (this.#made ??= this.#parent.child(this.#bindings, this.#opts));
  }

  #log(level: Level, args: unknown[]): void {
    // A level the parent does not write needs no child: the child's method would be pino's no-op.
    if (this.#made === undefined && this.#parent.isLevelEnabled?.(level) === false) return;
    const l = this.#logger();
    (l[level] as Call).apply(l, args);
  }

  get level(): string {
    return (this.#made ?? this.#parent).level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#log('error', args);
  }

  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }

  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}

/**
 * fastify's `childLoggerFactory`. A route with a level or serializers of its own (none in the
 * daemon) gets its child at once, as from fastify's default factory.
 */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = function (
  logger,
  bindings,
  opts,
) {
  if (opts.level !== undefined || opts.serializers !== undefined) return logger.child(bindings, opts);
  return new RequestLogger(logger, bindings, opts);
};
