/**
 * A large `/v1/stream` request message, its request parsed on a worker thread as a large HTTP
 * body is (deferred-body.ts): the message is split on its raw text into the envelope (id,
 * tool; the request left as `{}`), read here with the stream's own rules, and the request's
 * text, which only a worker parses.
 */
import { RAW_SCAN_FROM_CHARS, rawScan, skipString, skipValue } from '../admission/raw-limits.ts';
import type { InputLimits } from '../admission/input-limits.ts';
import { OFF_THREAD_ENTRIES } from './deferred-body.ts';

export interface DeferredMessage {
  /** The message with its request replaced by `{}`. */
  envelope: Buffer;
  /** The request's JSON text. */
  request: string;
}

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const COMMA = 44;

/** [start, end) of the top-level `request` member's object value, or undefined (absent, twice, not an object, not JSON). */
function requestSpan(text: string): [number, number] | undefined {
  let i = text.indexOf('{');
  if (i < 0 || text.slice(0, i).trim() !== '') return undefined;
  let span: [number, number] | undefined;
  let seen = 0;
  for (i++; i < text.length;) {
    const q = text.indexOf('"', i);
    if (q < 0 || text.slice(i, q).trim() !== '') return undefined;
    const keyEnd = skipString(text, q);
    // An escaped key may spell `request` too (JSON.parse keeps the last): not split.
    if (text.slice(q, keyEnd).includes('\\')) return undefined;
    const colon = text.indexOf(':', keyEnd);
    if (colon < 0 || text.slice(keyEnd, colon).trim() !== '') return undefined;
    let v = colon + 1;
    while (v < text.length && text.charCodeAt(v) <= 32) v++;
    const end = skipValue(text, v);
    if (text.slice(q, keyEnd) === '"request"' && ++seen && text.charCodeAt(v) === OPEN_BRACE) span = [v, end];
    let k = end;
    while (k < text.length && text.charCodeAt(k) <= 32) k++;
    if (text.charCodeAt(k) === CLOSE_BRACE) return seen === 1 && text.slice(k + 1).trim() === '' ? span : undefined;
    if (text.charCodeAt(k) !== COMMA) return undefined;
    i = k + 1;
  }
  return undefined;
}

/** The message split when its request has a collection of OFF_THREAD_ENTRIES entries or more; else undefined. */
export function deferredMessage(data: Buffer, limits: InputLimits): DeferredMessage | undefined {
  if (data.length < RAW_SCAN_FROM_CHARS) return undefined;
  const text = data.toString('utf8');
  const span = requestSpan(text);
  if (!span) return undefined;
  const request = text.slice(span[0], span[1]);
  if (rawScan(request, limits).entries < OFF_THREAD_ENTRIES) return undefined;
  return { envelope: Buffer.from(`${text.slice(0, span[0])}{}${text.slice(span[1])}`), request };
}
