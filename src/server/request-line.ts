/**
 * The request log line written without pino's general serializer: the line is a template over
 * the logger's own prebuilt fragments (level, time, base bindings, as pino's `asJson` starts
 * its lines) followed by the request's flat fields. Same JSON members in the same order as
 * `request.log.info(fields, msg)` writes; about a third of its CPU (the cache-hit path is
 * ~15 µs a request and pino's general path was the largest share the daemon added to a bare
 * route). Used only for a logger made by createLogger (src/log.ts), whose layout is pino's
 * default; any other logger gets `request.log.info`.
 */
import { symbols, type Logger } from 'pino';
import { PLAIN_LAYOUT } from '../log.ts';

/** Flat fields of a line; undefined ones are left out, as pino does. */
export type LineFields = Record<string, string | number | undefined>;

export type LineWriter = (reqId: string, fields: LineFields, msg: string) => void;

interface PinoInternals {
  [symbols.lsCacheSym]: Record<number, string>;
  [symbols.timeSym]: () => string;
  [symbols.chindingsSym]: string;
  [symbols.streamSym]: { write(s: string): unknown };
}

/** The members `,"key":value` of flat fields (keys are the caller's literals: no escaping needed). */
export function members(fields: LineFields): string {
  let s = '';
  for (const k in fields) {
    const v = fields[k];
    if (v === undefined) continue;
    s += `,"${k}":${typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'null') : JSON.stringify(v)}`;
  }
  return s;
}

/** A writer of info lines for `logger`, or undefined when its layout is not the plain one. */
export function infoLineWriter(logger: Logger): LineWriter | undefined {
  const write = infoTextWriter(logger);
  return (
    write &&
    ((reqId, fields, msg) => write(`,"reqId":${JSON.stringify(reqId)}${members(fields)},"msg":${JSON.stringify(msg)}}`))
  );
}

/**
 * An info line from everything after the logger's own fragments (`,"reqId":…,"msg":…}`, written
 * by the caller as JSON text), for a line whose values need no escaping (src/server/request-log.ts,
 * a cache hit's line).
 */
export function infoTextWriter(logger: Logger): ((rest: string) => void) | undefined {
  if ((logger as unknown as Record<symbol, unknown>)[PLAIN_LAYOUT] !== true) return undefined;
  const p = logger as unknown as PinoInternals;
  const level = p[symbols.lsCacheSym][logger.levels.values.info!]!;
  const time = p[symbols.timeSym];
  const stream = p[symbols.streamSym];
  return (rest) => {
    stream.write(`${level}${time()}${p[symbols.chindingsSym]}${rest}\n`);
  };
}
