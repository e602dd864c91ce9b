/**
 * Input limits counted on the raw JSON text, before JSON.parse builds the objects (an
 * 800k-entry rename map held the main thread for seconds before its 400, most of it
 * building the map that was then refused). One linear pass over the body's text counts the
 * entries of each top-level list and map (strings are skipped with indexOf, nothing is
 * allocated but the top-level keys) and stops at the first collection over its limit, which
 * is refused with the same error checkInputLimits raises on the parsed body. Text that is not
 * valid JSON is left to the parser, whose error names the problem.
 */
import type { ServiceError } from '../errors.ts';
import {
  BODY_FIELDS_OVER,
  collectionLimit,
  limitError,
  listOverLimit,
  mapOverLimit,
  MAX_BODY_FIELDS,
  type InputLimits,
} from './input-limits.ts';

/**
 * Below this size the body is parsed directly: JSON.parse of 64 KiB takes well under a
 * millisecond, and no collection that small costs anything to build (a list over the
 * smallest list limit, documents' 1,000, is a few KiB; one that costs is hundreds).
 */
export const RAW_SCAN_FROM_CHARS = 64 * 1024;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** The index just past the string whose opening quote is at `i` (or the text's length if unterminated). */
export function skipString(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return text.length;
    // A quote preceded by an odd run of backslashes is escaped.
    let k = q - 1;
    while (k > i && text.charCodeAt(k) === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** A top-level collection being counted. */
interface Counting {
  field: string;
  list: boolean;
  entries: number;
  /** Anything seen since its opening bracket (an empty collection has no entries). */
  any: boolean;
}

/** What the scan of a raw body found. */
export interface RawScan {
  /** The limit error for the first top-level collection over its limit. */
  error: ServiceError | undefined;
  /** Entries of the largest top-level list or map (what parsing and validating it cost grows with). */
  entries: number;
}

const NOTHING: RawScan = Object.freeze({ error: undefined, entries: 0 });

/**
 * The body's top-level collections counted on the raw text: the limit error of the first one
 * over its limit, and the largest one's entries; nothing when the body is small or is not a
 * JSON object.
 */
export function rawScan(text: string, limits: InputLimits): RawScan {
  if (text.length < RAW_SCAN_FROM_CHARS) return NOTHING;
  let i = 0;
  while (i < text.length && text.charCodeAt(i) !== OPEN_BRACE) i++;
  if (i >= text.length || text.slice(0, i).trim() !== '') return NOTHING;
  return scanObject(text, i + 1, limits);
}

/** The limit error for the body's first top-level collection over its limit (rawScan). */
export const rawLimitError = (text: string, limits: InputLimits): ServiceError | undefined =>
  rawScan(text, limits).error;

/** Scans the top-level object's members from `start`: counts each collection's entries at depth 1. */
function scanObject(text: string, start: number, limits: InputLimits): RawScan {
  let entries = 0;
  let depth = 0;
  let key: string | undefined;
  let fields = 0;
  let counting: Counting | undefined;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = skipString(text, i);
      if (depth === 0 && key === undefined) {
        key = text.slice(i + 1, end - 1);
        if (++fields > MAX_BODY_FIELDS) return { error: limitError([BODY_FIELDS_OVER]), entries };
      }
      if (counting && depth === 1) counting.any = true;
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (counting && depth === 1) counting.any = true;
      if (depth === 0 && key !== undefined) counting = { field: key, list: c === OPEN_BRACKET, entries: 0, any: false };
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return { error: undefined, entries };
      depth--;
      if (depth === 0 && counting) {
        const over = countedOver(counting, limits);
        if (over) return { error: over, entries };
        entries = Math.max(entries, counting.any ? counting.entries + 1 : 0);
        counting = undefined;
      }
    } else if (c === COMMA) {
      if (depth === 0) key = undefined;
      else if (depth === 1 && counting) {
        counting.entries++;
        // A map is refused as soon as it is over (its message says "more than"); a list is
        // counted to its end, for the exact count the parsed-body check reports too.
        if (!counting.list && counting.entries >= collectionLimit(counting.field, false, limits))
          return { error: countedOver({ ...counting, entries: counting.entries + 1 }, limits), entries };
      }
    } else if (c !== COLON && c > 32 && counting && depth === 1) counting.any = true;
  }
  // Text that ends inside a collection (broken JSON) counts it too: parsing it costs as much.
  return { error: undefined, entries: Math.max(entries, counting?.any ? counting.entries + 1 : 0) };
}

/** The error for a finished collection over its limit, or undefined. */
function countedOver(c: Counting, limits: InputLimits): ServiceError | undefined {
  const n = c.any ? c.entries + 1 : 0;
  if (n <= collectionLimit(c.field, c.list, limits)) return undefined;
  return limitError([c.list ? listOverLimit(c.field, n, limits) : mapOverLimit(c.field, limits)]);
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the JSON value starting at `i` (strings skipped whole, brackets matched). */
export function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) return i;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === QUOTE) i = skipString(text, i) - 1;
    else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  return i;
}

/** A key's text as JSON.parse would read it (escapes decoded only when there are any). */
function keyText(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return undefined;
  }
}

/**
 * Where the value of member `key` starts in the JSON object whose `{` is at `open`, read on
 * the raw text (one pass over the members, values skipped); undefined when the object has no
 * such member or the text is not shaped as JSON there (the parser then names the problem).
 */
export function rawMember(text: string, open: number, key: string): number | undefined {
  if (text.charCodeAt(open) !== OPEN_BRACE) return undefined;
  let i = skipSpace(text, open + 1);
  while (i < text.length && text.charCodeAt(i) === QUOTE) {
    const end = skipString(text, i);
    const name = keyText(text, i, end);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const value = skipSpace(text, i + 1);
    if (name === key) return value;
    i = skipSpace(text, skipValue(text, value));
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i = skipSpace(text, i + 1);
  }
  return undefined;
}

/** The text's first `{`, when only white space comes before it. */
export function rawTopObject(text: string): number | undefined {
  const i = skipSpace(text, 0);
  return text.charCodeAt(i) === OPEN_BRACE ? i : undefined;
}

/**
 * The limit error of the object whose `{` is at `open`, counted on the raw text as a request
 * body's top level is (rawLimitError); undefined when it fits or the text is small.
 */
export function rawLimitErrorAt(text: string, open: number, limits: InputLimits): ServiceError | undefined {
  if (text.length < RAW_SCAN_FROM_CHARS || text.charCodeAt(open) !== OPEN_BRACE) return undefined;
  return scanObject(text, open + 1, limits).error;
}

/** The string or number whose text starts at `start` (as JSON.parse reads it), else undefined. */
export function rawScalar(text: string, start: number | undefined): string | number | undefined {
  if (start === undefined) return undefined;
  const c = text.charCodeAt(start);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return undefined;
  try {
    const v: unknown = JSON.parse(text.slice(start, skipValue(text, start)));
    return typeof v === 'string' || typeof v === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}
