/** The logger surface the layers below the edge use (satisfied by pino and by fastify's request.log), and the daemon's logger. */
import { pino, type LogFn, type Logger } from 'pino';
import { write, writeSync } from 'node:fs';

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
 * Marks a logger whose lines have pino's default layout (made by createLogger): the request
 * log line may then be written from its fragments (src/server/request-line.ts).
 */
export const PLAIN_LAYOUT: unique symbol = Symbol('lean-tool.plainLayout');

/**
 * The daemon's logger: JSON lines to stdout, buffered in memory and written in large
 * asynchronous writes (LineBuffer below). A synchronous write per line cost the cache-hit
 * path about a quarter of its throughput, and pino's own asynchronous destination ~2.5 µs of
 * CPU per line. Same lines, same fields, at most LOG_FLUSH_MS late; what is buffered is
 * written when the process exits.
 */
export function createLogger(level: string): Logger {
  const dest = new LineBuffer(1);
  setInterval(() => dest.flush(), LOG_FLUSH_MS).unref();
  const logger = pino({ level }, dest);
  (logger as unknown as Record<symbol, unknown>)[PLAIN_LAYOUT] = true;
  return logger;
}

/** The daemon's logger at the level LOG_LEVEL names in `env` (default info). */
export const rootLogger = (env: NodeJS.ProcessEnv): Logger => createLogger(env.LOG_LEVEL ?? 'info');
export const silentLogger = (): Logger => pino({ level: 'silent' });

/**
 * Log lines buffered in memory and written to a file descriptor in large asynchronous writes.
 *
 * pino's asynchronous destination (sonic-boom 4) measures the byte length of its whole pending
 * string on every line, so a line cost ~2.5 µs of CPU at a 4 KiB buffer and more at larger ones
 * (on a request path of ~15 µs). Here a line costs an array push; the lines are joined and
 * written once per FLUSH_CHARS (or by the logger's timer), one write in flight at a time, and
 * what is pending is written synchronously when the process exits.
 *
 * Bounded: while the descriptor does not take the data (a stalled pipe), lines past
 * MAX_PENDING_CHARS are dropped and counted, and a line saying how many is written once writes
 * resume, rather than the daemon's memory growing with its log.
 */
/** Pending characters that start a write (~64 KiB: one system call per ~200 request lines). */
const FLUSH_CHARS = 64 * 1024;
/** Pending characters beyond which lines are dropped (the descriptor is not keeping up). */
const MAX_PENDING_CHARS = 16 * 1024 * 1024;
const RETRY_MS = 10;

export class LineBuffer {
  #parts: string[] = [];
  #chars = 0;
  #writing = false;
  #dropped = 0;
  readonly #fd: number;

  constructor(fd: number) {
    this.#fd = fd;
    process.once('exit', () => this.flushSync());
  }

  /** Takes one or more whole lines. */
  write(s: string): boolean {
    if (this.#chars + s.length > MAX_PENDING_CHARS) {
      this.#dropped++;
      return false;
    }
    this.#parts.push(s);
    this.#chars += s.length;
    if (this.#chars >= FLUSH_CHARS) this.flush();
    return true;
  }

  /** Starts writing what is pending (unless a write is in flight: it continues with the rest when done). */
  flush(cb?: (err?: Error) => void): void {
    if (!this.#writing && this.#chars > 0) this.#writeOut(this.#take(), 0);
    cb?.();
  }

  /** Writes what is pending now, blocking (process exit). A write in flight is left to finish. */
  flushSync(): void {
    if (this.#chars === 0) return;
    const data = this.#take();
    // A full non-blocking pipe answers EAGAIN: wait a little and retry, for at most ~1 s.
    for (let off = 0, tries = 0; off < data.length;) {
      try {
        off += writeSync(this.#fd, data, off);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || ++tries > 100) return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
      }
    }
  }

  #take(): Buffer {
    if (this.#dropped > 0) {
      this.#parts.push(
        `{"level":40,"time":${Date.now()},"msg":"${this.#dropped} log lines dropped: the log output did not keep up"}\n`,
      );
      this.#dropped = 0;
    }
    const data = Buffer.from(this.#parts.join(''));
    this.#parts = [];
    this.#chars = 0;
    return data;
  }

  #writeOut(data: Buffer, off: number): void {
    this.#writing = true;
    write(this.#fd, data, off, data.length - off, null, (err, n) => {
      if (err) {
        // A non-blocking pipe that is full: try again shortly. Anything else: this chunk is lost.
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          setTimeout(() => this.#writeOut(data, off), RETRY_MS).unref();
          return;
        }
      } else if (off + n < data.length) {
        this.#writeOut(data, off + n);
        return;
      }
      this.#writing = false;
      if (this.#chars >= FLUSH_CHARS) this.flush();
    });
  }
}
