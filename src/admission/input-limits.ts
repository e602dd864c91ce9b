/**
 * Per-field input limits (config `limits`): checked on the parsed body BEFORE validation
 * (issue 23): zod builds one issue per wrong item and copies every map, so an 800k-entry
 * rename map or a million-item list must be refused by counting, before zod sees it. The
 * checks only count (array lengths, keys up to the limit, string lengths), whatever shape
 * the body has; validation then sees bounded input. Text fields are measured in UTF-8 bytes,
 * lists and maps in entries.
 */
import { serviceError, type ErrorDetail } from '../errors.ts';
import { utf8Length } from '../syntax/positions.ts';

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
function countKeys(o: object, max: number): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k) && ++n > max) break;
  return n;
}

/**
 * The first field over its limit, as a 400 `invalid_request` naming it; nothing when all fit.
 * Runs on the raw body (any shape): a field of the wrong type is left to validation.
 */
export function checkInputLimits(body: unknown, limits: InputLimits): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const request = body as Record<string, unknown>;
  const over: ErrorDetail[] = [];
  if (countKeys(request, MAX_BODY_FIELDS) > MAX_BODY_FIELDS)
    over.push({ field: '', message: `has more than ${MAX_BODY_FIELDS} fields; no tool takes that many` });
  const text = (field: string, v: unknown) => {
    // Cheap bound first: a string's UTF-8 size is between its length and three times it.
    if (typeof v === 'string' && v.length * 3 > limits.contentBytes && utf8Length(v) > limits.contentBytes) {
      over.push({ field, message: `is larger than the limit of ${limits.contentBytes} bytes (limits.contentBytes)` });
    }
  };
  const list = (field: string, v: unknown, max: number, key: string) => {
    if (Array.isArray(v) && v.length > max)
      over.push({ field, message: `has ${v.length} entries; the limit is ${max} (limits.${key})` });
  };
  text('content', request.content);
  text('formal_statement', request.formal_statement);
  list('names', request.names, limits.names, 'names');
  list('permitted_sorries', request.permitted_sorries, limits.names, 'names');
  list('indices', request.indices, limits.indices, 'indices');
  list('documents', request.documents, limits.documents, 'documents');
  if (Array.isArray(request.documents) && request.documents.length <= limits.documents)
    request.documents.forEach((d, i) => text(`documents.${i}`, d));
  const decls = request.declarations;
  if (
    decls &&
    typeof decls === 'object' &&
    !Array.isArray(decls) &&
    countKeys(decls, limits.renameEntries) > limits.renameEntries
  )
    over.push({
      field: 'declarations',
      message: `has more than ${limits.renameEntries} entries (limits.renameEntries)`,
    });
  // Any other list or map (options, repairs…): no tool needs more entries than the largest list limit.
  const other = Math.max(limits.names, limits.indices, limits.renameEntries);
  for (const field in request) {
    if (LIMITED.has(field) || !Object.hasOwn(request, field)) continue;
    const v = request[field];
    if (Array.isArray(v)) list(field, v, other, 'names');
    else if (v && typeof v === 'object' && countKeys(v, other) > other)
      over.push({ field, message: `has more than ${other} entries` });
  }
  if (over.length > 0) {
    const first = over[0]!;
    throw serviceError(
      'invalid_request',
      'limit',
      { field: first.field, problem: first.message },
      { details: over.slice(0, 10) },
    );
  }
}
