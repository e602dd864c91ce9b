/** The logger surface the layers below the edge use (satisfied by pino and by fastify's request.log), and the daemon's logger. */
import { pino, type LogFn, type Logger } from 'pino';
import { writeSync } from 'node:fs';

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
 * path a large share of its throughput, and pino's own asynchronous destination measurable
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
 * string on every line, so a line's cost grew with the buffer
 * (a visible share of a request path). Here a line costs an array push; the lines are joined and
 * written once per FLUSH_CHARS (or by the logger's timer) with one synchronous system call, and
 * what is pending is written when the process exits; the chunk being written and its offset are
 * always known, so a full pipe at exit loses no line and tears none (an asynchronous write still
 * in flight at exit did both).
 *
 * Bounded: while the descriptor does not take the data (a stalled non-blocking pipe: EAGAIN),
 * lines past MAX_PENDING_CHARS are dropped and counted, and a line saying how many is written once
 * writes resume, rather than the daemon's memory growing with its log. On a blocking descriptor a
 * reader that stops reading blocks the write, as pino's default (synchronous) destination and
 * Node's own stdout on Linux do: the price of knowing, at exit, exactly what was written.
 */
/** Pending characters that start a write (~64 KiB: one system call per ~200 request lines). */
const FLUSH_CHARS = 64 * 1024;
/** Pending characters beyond which lines are dropped (the descriptor is not keeping up). */
const MAX_PENDING_CHARS = 16 * 1024 * 1024;
const RETRY_MS = 10;
/** The reused chunk buffer: a chunk of FLUSH_CHARS plus a long last line, 3 bytes a character. */
const OUT_BYTES = 3 * (FLUSH_CHARS + 16 * 1024);

export class LineBuffer {
  #parts: string[] = [];
  #chars = 0;
  #dropped = 0;
  /** The chunk being written and how much of it the descriptor has taken: always known, so an exit loses nothing. */
  #chunk: Buffer | undefined;
  #chunkOff = 0;
  #retry: NodeJS.Timeout | undefined;
  readonly #fd: number;
  /** Where chunks are encoded (`#take`). */
  readonly #out = Buffer.allocUnsafeSlow(OUT_BYTES);

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

  /** Writes what is pending; a full non-blocking pipe (EAGAIN) is retried shortly from a timer. */
  flush(cb?: (err?: Error) => void): void {
    if (this.#retry === undefined && !this.#drain() && this.#chunk) {
      this.#retry = setTimeout(() => {
        this.#retry = undefined;
        this.flush();
      }, RETRY_MS).unref();
    }
    cb?.();
  }

  /** Writes what is pending now, blocking (process exit): a full pipe is waited for, at most 100 waits of RETRY_MS. */
  flushSync(): void {
    for (let tries = 0; !this.#drain() && this.#chunk && tries < 100; tries++)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
  }

  /**
   * Synchronous writes (one system call per ~64 KiB chunk) of the chunk in progress, then of what
   * is pending, until all is written (true) or the descriptor answers EAGAIN (false; the chunk and
   * its offset are kept). Another error loses that chunk, not the process.
   */
  #drain(): boolean {
    for (;;) {
      if (!this.#chunk) {
        if (this.#chars === 0 && this.#dropped === 0) return true;
        this.#chunk = this.#take();
        this.#chunkOff = 0;
      }
      try {
        const n = writeSync(this.#fd, this.#chunk, this.#chunkOff);
        if (n === 0) return false;
        this.#chunkOff += n;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        this.#chunkOff = this.#chunk.length;
      }
      if (this.#chunkOff >= this.#chunk.length) this.#chunk = undefined;
    }
  }

  #take(): Buffer {
    if (this.#dropped > 0) {
      this.#parts.push(
        `{"level":40,"time":${Date.now()},"msg":"${this.#dropped} log lines dropped: the log output did not keep up"}\n`,
      );
      this.#dropped = 0;
    }
    const text = this.#parts.join('');
    this.#parts = [];
    this.#chars = 0;
    // Encoded into the one reused buffer when it surely fits (3 bytes per UTF-16 unit at most): a
    // new Buffer per chunk (Buffer.from) cost a large share of a line's CPU, its memory outside the heap
    // turning over every ~200 lines. The chunk is written whole before the next is taken.
    if (text.length * 3 > this.#out.length) return Buffer.from(text);
    return this.#out.subarray(0, this.#out.write(text, 0));
  }
}
