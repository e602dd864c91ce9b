/**
 * A fast path for validating the request fields that may hold up to 100k entries:
 * zod's work per entry, times 100k, held the main thread for a large part of a second (a valid
 * rename map, or a list of numbers building one issue each). These fields have simple shapes, so
 * when one is large it is checked here by a plain loop that stops listing after a few
 * problems, and zod validates the rest of the body with a small stand-in of the same shape.
 * The checks are those of the schemas in common.ts / tools.ts (no transforms: the value is
 * kept as sent). Small fields still go through zod alone, with zod's own wording.
 */
import type { ErrorDetail } from '../errors.ts';

/** Entries from which a field takes the fast path. */
export const LARGE_FIELD_ENTRIES = 256;

type Shape = 'strings' | 'integers' | 'nameMap';
/** The collection fields of the tool schemas and their shapes (as pairs: walked on every request). */
const SHAPES: readonly (readonly [string, Shape])[] = [
  ['names', 'strings'],
  ['permitted_sorries', 'strings'],
  ['documents', 'strings'],
  ['indices', 'integers'],
  ['declarations', 'nameMap'],
];

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Problems of one large field: at most `max` listed, all counted. */
function checkField(field: string, shape: Shape, value: unknown, max: number, out: ErrorDetail[]): number {
  let problems = 0;
  const report = (path: string, message: string) => {
    if (++problems <= max) out.push({ field: path, message });
  };
  if (shape === 'nameMap') {
    const map = value as Record<string, unknown>;
    for (const key in map) {
      if (!Object.hasOwn(map, key)) continue;
      const v = map[key];
      if (key === '') report(field, 'Too small: expected string to have >=1 characters');
      if (typeof v !== 'string') report(`${field}.${key}`, `Invalid input: expected string, received ${typeName(v)}`);
      else if (v === '') report(`${field}.${key}`, 'new names must not be empty');
    }
    return problems;
  }
  const list = value as unknown[];
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (shape === 'strings' && typeof v !== 'string')
      report(`${field}.${i}`, `Invalid input: expected string, received ${typeName(v)}`);
    else if (shape === 'integers' && typeof v !== 'number')
      report(`${field}.${i}`, `Invalid input: expected number, received ${typeName(v)}`);
    else if (shape === 'integers' && !Number.isInteger(v)) report(`${field}.${i}`, 'must be integers');
  }
  return problems;
}

/** Is `value` a collection of the field's shape with at least LARGE_FIELD_ENTRIES entries? */
function isLarge(shape: Shape, value: unknown): boolean {
  if (shape !== 'nameMap') return Array.isArray(value) && value.length >= LARGE_FIELD_ENTRIES;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  let n = 0;
  for (const k in value) if (Object.hasOwn(value, k) && ++n >= LARGE_FIELD_ENTRIES) return true;
  return false;
}

export interface LargeFields {
  /** The body with each large field replaced by a small stand-in of its shape (for zod). */
  body: Record<string, unknown>;
  /** The large fields as sent, to put back into zod's result when the whole body is valid. */
  originals: Record<string, unknown>;
  details: ErrorDetail[];
  /** Problems found beyond those in `details`. */
  omitted: number;
}

/** Splits the large collection fields the schema `fields` has off `body` and checks them. */
export function takeLargeFields(body: Record<string, unknown>, fields: object, max: number): LargeFields {
  const out: LargeFields = { body, originals: {}, details: [], omitted: 0 };
  let total = 0;
  for (const [field, shape] of SHAPES) {
    const value = body[field];
    if (!Object.hasOwn(fields, field) || !isLarge(shape, value)) continue;
    if (out.body === body) out.body = { ...body };
    total += checkField(field, shape, value, Math.max(0, max - out.details.length), out.details);
    out.originals[field] = value;
    // The stand-in passes the field's own schema (documents needs one entry), so zod reports only the rest.
    out.body[field] = shape === 'nameMap' ? {} : shape === 'strings' ? [''] : [0];
  }
  out.omitted = total - out.details.length;
  return out;
}

/**
 * The request without its large collection fields (as takeLargeFields finds them): what a
 * worker thread that validated a large body sends back to the main thread, which needs only
 * the small fields (environment, options) to route the request; the tool itself runs on a
 * worker from the raw body again.
 */
export function withoutLargeFields(request: Record<string, unknown>): Record<string, unknown> {
  let out = request;
  for (const [field, shape] of SHAPES) {
    if (!isLarge(shape, request[field])) continue;
    if (out === request) out = { ...request };
    delete out[field];
  }
  return out;
}
