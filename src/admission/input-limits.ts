/**
 * Per-field input limits (config `limits`): checked on the parsed body BEFORE validation,
 * because zod builds one issue per wrong item and copies every map, so an 800k-entry
 * rename map or a million-item list must be refused by counting, before zod sees it. The
 * checks only count (array lengths, keys up to the limit, string lengths), whatever shape
 * the body has; validation then sees bounded input. Text fields are measured in UTF-8 bytes,
 * lists and maps in entries.
 */
import { serviceError, type ErrorDetail, type ServiceError } from '../errors.ts';
import { utf8Length } from '../syntax/positions.ts';
import { MAX_PERMITTED_GLOBS } from '../contract/tools.ts';
import { isGlob } from '../util/glob.ts';

export interface InputLimits {
  /** UTF-8 bytes of each source text: `content`, `formal_statement`, each of `documents`. */
  contentBytes: number;
  /** Entries of `names` (and `permitted_sorries`). */
  names: number;
  /** Entries of `indices`. */
  indices: number;
  /** Entries of rename's `declarations` map. */
  renameEntries: number;
  /** Entries of merge's `documents`. */
  documents: number;
  /** A response may be this many times the request (tools/response-bound.ts)… */
  responseFactor: number;
  /** …and always at least this many bytes. */
  responseMinBytes: number;
}

/** Fields with a limit of their own above. */
const LIMITED = new Set([
  'content',
  'formal_statement',
  'names',
  'permitted_sorries',
  'indices',
  'documents',
  'declarations',
]);

export const DEFAULT_INPUT_LIMITS: InputLimits = {
  contentBytes: 8 * 1024 * 1024,
  names: 100_000,
  indices: 100_000,
  renameEntries: 100_000,
  documents: 1_000,
  responseFactor: 8,
  responseMinBytes: 1024 * 1024,
};

/**
 * Fields of a request body: no tool has nearly this many parameters, so a body with more is
 * refused before validation lists each unknown key.
 */
export const MAX_BODY_FIELDS = 100;

/** Own enumerable keys of `o`, counted up to `max + 1` (never all of a huge map). */
export function countKeys(o: object, max: number): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k) && ++n > max) break;
  return n;
}

/** The limit on a top-level list or map's entries, and the setting named in its error. */
function limitOf(field: string, list: boolean, limits: InputLimits): { max: number; setting: string | undefined } {
  if (list && (field === 'names' || field === 'permitted_sorries')) return { max: limits.names, setting: 'names' };
  if (list && field === 'indices') return { max: limits.indices, setting: 'indices' };
  if (list && field === 'documents') return { max: limits.documents, setting: 'documents' };
  if (!list && field === 'declarations') return { max: limits.renameEntries, setting: 'renameEntries' };
  // Any other list or map (options, repairs…): no tool needs more entries than the largest list limit.
  const other = Math.max(limits.names, limits.indices, limits.renameEntries);
  return { max: other, setting: list ? 'names' : undefined };
}

/** The most entries a top-level list (or map) `field` may have. */
export const collectionLimit = (field: string, list: boolean, limits: InputLimits): number =>
  limitOf(field, list, limits).max;

/** The detail for a list of `n` entries over its limit. */
export function listOverLimit(field: string, n: number, limits: InputLimits): ErrorDetail {
  const { max, setting } = limitOf(field, true, limits);
  return { field, message: `has ${n} entries; the limit is ${max} (limits.${setting})` };
}

/** The detail for a map over its limit. */
export function mapOverLimit(field: string, limits: InputLimits): ErrorDetail {
  const { max, setting } = limitOf(field, false, limits);
  return { field, message: `has more than ${max} entries${setting ? ` (limits.${setting})` : ''}` };
}

export const BODY_FIELDS_OVER: ErrorDetail = {
  field: '',
  message: `has more than ${MAX_BODY_FIELDS} fields; no tool takes that many`,
};

/** The 400 for the fields over their limits (the first one named in the message). */
export function limitError(over: ErrorDetail[]): ServiceError {
  const first = over[0]!;
  return serviceError(
    'invalid_request',
    'limit',
    { field: first.field, problem: first.message },
    { details: over.slice(0, 10) },
  );
}

/** Text fields' UTF-8 size: `content`, `formal_statement`, each of `documents`. */
function textsOver(request: Record<string, unknown>, limits: InputLimits, over: ErrorDetail[]): void {
  textOver('content', request.content, limits, over);
  textOver('formal_statement', request.formal_statement, limits, over);
  if (Array.isArray(request.documents) && request.documents.length <= limits.documents)
    request.documents.forEach((d, i) => textOver(`documents.${i}`, d, limits, over));
}

/**
 * One text field against limits.contentBytes. A module function, not a closure in textsOver: the
 * build keeps function names (esbuild `keepNames`), which costs a defineProperty per named closure
 * made, on every request.
 */
function textOver(field: string, v: unknown, limits: InputLimits, over: ErrorDetail[]): void {
  // Cheap bound first: a string's UTF-8 size is between its length and three times it.
  if (typeof v === 'string' && v.length * 3 > limits.contentBytes && utf8Length(v) > limits.contentBytes) {
    over.push({ field, message: `is larger than the limit of ${limits.contentBytes} bytes (limits.contentBytes)` });
  }
}

/**
 * verify_proof's globs: each costs a pass over every name checked, so their number is capped
 * (exact names are looked up). Counted only on a list within its length limit (else refused already).
 */
function globsOver(request: Record<string, unknown>, limits: InputLimits, over: ErrorDetail[]): void {
  const list = request.permitted_sorries;
  if (!Array.isArray(list) || list.length > limits.names) return;
  let globs = 0;
  for (let i = 0; i < list.length; i++) if (typeof list[i] === 'string' && isGlob(list[i] as string)) globs++;
  if (globs > MAX_PERMITTED_GLOBS)
    over.push({
      field: 'permitted_sorries',
      message: `holds ${globs} glob patterns (entries with \`*\`); the limit is ${MAX_PERMITTED_GLOBS} (exact names are not limited by it)`,
    });
}

/** Lists and maps in the shape their tools take them (a field of another type is left to validation). */
const KNOWN_SHAPE: Record<string, 'list' | 'map'> = {
  names: 'list',
  permitted_sorries: 'list',
  indices: 'list',
  documents: 'list',
  declarations: 'map',
};

/**
 * The first field over its limit, as a 400 `invalid_request` naming it; nothing when all fit.
 * Runs on the raw body (any shape): a field of the wrong type is left to validation.
 */
export function checkInputLimits(body: unknown, limits: InputLimits): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const request = body as Record<string, unknown>;
  // Refused at once, as the raw-text count does: the fields past the first 101 are never visited.
  if (countKeys(request, MAX_BODY_FIELDS) > MAX_BODY_FIELDS) throw limitError([BODY_FIELDS_OVER]);
  const over: ErrorDetail[] = [];
  textsOver(request, limits, over);
  if (request.permitted_sorries !== undefined) globsOver(request, limits, over);
  for (const field in request) {
    if (!Object.hasOwn(request, field) || (LIMITED.has(field) && !KNOWN_SHAPE[field])) continue;
    const v = request[field];
    const shape = Array.isArray(v) ? 'list' : v && typeof v === 'object' ? 'map' : undefined;
    if (!shape || (KNOWN_SHAPE[field] && KNOWN_SHAPE[field] !== shape)) continue;
    const max = collectionLimit(field, shape === 'list', limits);
    if (shape === 'list' && (v as unknown[]).length > max)
      over.push(listOverLimit(field, (v as unknown[]).length, limits));
    else if (shape === 'map' && countKeys(v as object, max) > max) over.push(mapOverLimit(field, limits));
  }
  if (over.length > 0) throw limitError(over);
}
