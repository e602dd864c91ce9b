/**
 * Per-field input limits (config `limits`): checked after validation and before any work,
 * so an oversized field is a 400 that names it instead of seconds of CPU. Text fields are
 * measured in UTF-8 bytes, lists and maps in entries.
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
}

export const DEFAULT_INPUT_LIMITS: InputLimits = {
  contentBytes: 8 * 1024 * 1024,
  names: 100_000,
  indices: 100_000,
  renameEntries: 100_000,
  documents: 1_000,
};

/** The first field over its limit, as a 400 `invalid_request` naming it; nothing when all fit. */
export function checkInputLimits(request: Record<string, unknown>, limits: InputLimits): void {
  const over: ErrorDetail[] = [];
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
  if (Array.isArray(request.documents)) request.documents.forEach((d, i) => text(`documents.${i}`, d));
  const decls = request.declarations;
  if (decls && typeof decls === 'object' && !Array.isArray(decls)) {
    let n = 0;
    for (const _ in decls) if (++n > limits.renameEntries) break;
    if (n > limits.renameEntries)
      over.push({
        field: 'declarations',
        message: `has more than ${limits.renameEntries} entries (limits.renameEntries)`,
      });
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
