/**
 * The request log line written without pino's general serializer: the line is a template over
 * the logger's own prebuilt fragments (level, time, base bindings, as pino's `asJson` starts
 * its lines) followed by the request's members as JSON text. Same JSON members in the same order
 * as `request.log.info(fields, msg)` writes, for less CPU (on the cache-hit path
 * pino's general path was the largest share the daemon added to a bare
 * route). Used only for a logger made by createLogger (src/log.ts), whose layout is pino's
 * default; any other logger gets `request.log.info`.
 */
import { stdTimeFunctions, symbols, type Logger } from 'pino';
import { PLAIN_LAYOUT } from '../log.ts';

interface PinoInternals {
  [symbols.lsCacheSym]: Record<number, string>;
  [symbols.timeSym]: () => string;
  [symbols.chindingsSym]: string;
  [symbols.streamSym]: { write(s: string): unknown };
}

/** Characters JSON.stringify escapes in a string (and any surrogate, paired ones left to it too). */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string's JSON text between its quotes, as JSON.stringify writes it: the string itself when
 * nothing needs escaping (no copy), so a line's quotes can stay in its constant fragments.
 */
export function jsonChars(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s).slice(1, -1) : s;
}

let stampMs = -1;
let stamp = '';
let stampSecond = -1;
let secondText = '';
/** The three digits of each millisecond of a second. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * `,"time":<ms>` for an epoch in milliseconds (at least 1,000), as pino's `epochTime` writes it:
 * the second's digits, made once a second, then the millisecond's three from a table. An epoch in
 * milliseconds is no small integer, and V8 writes such a number through a runtime call when its
 * number-to-string cache misses: every new millisecond, visible in the daemon's perf profile of a miss.
 */
export function epochText(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    secondText = `,"time":${second}`;
  }
  return secondText + MILLIS[ms - second * 1000]!;
}

/** pino's `epochTime` (`,"time":<Date.now()>`), its text made once per millisecond. */
function epochStamp(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = epochText(now);
  }
  return stamp;
}

/**
 * An info line from everything after the logger's own fragments (`,"reqId":…,"msg":…}`, written
 * by the caller as JSON text: src/server/request-log.ts, a request's line and a cache hit's).
 */
export function infoTextWriter(logger: Logger): ((rest: string) => void) | undefined {
  if ((logger as unknown as Record<symbol, unknown>)[PLAIN_LAYOUT] !== true) return undefined;
  const p = logger as unknown as PinoInternals;
  const level = p[symbols.lsCacheSym][logger.levels.values.info!]!;
  const own = p[symbols.timeSym];
  const time = own === stdTimeFunctions.epochTime ? epochStamp : own;
  const stream = p[symbols.streamSym];
  return (rest) => {
    stream.write(`${level}${time()}${p[symbols.chindingsSym]}${rest}\n`);
  };
}
