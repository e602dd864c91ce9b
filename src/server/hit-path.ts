/**
 * The cache-hit fast path at the HTTP edge. A tool request whose body is byte-identical to one
 * answered before is looked up by its raw bytes (ResultCache.rawKey) while the body is read, before any
 * JSON parsing or validation (those bytes were parsed and validated when they were first
 * answered); a hit then skips the JSON parser and the handler sends the stored bytes after
 * authorizing the caller. A miss carries its raw key on to the pipeline, so the key is made
 * once either way.
 */
import type { FastifyRequest } from 'fastify';
import type { CachedResult, RawKey } from '../cache/result-cache.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw-body lookup made while the body was read (tool routes only). */
    rawLookup: RawLookup | undefined;
  }
}

export interface RawLookup {
  hit: CachedResult | undefined;
  rawKey: RawKey;
}

/** The pipeline's raw-body lookup (Pipeline.lookupRaw). */
export type LookupRaw = (tool: string, rawBody: string) => RawLookup;

/**
 * The body parser's question before it parses: true when the request is a cache hit whose JSON
 * need not be parsed. Only tool routes (a `:tool` parameter) are looked up.
 */
export function rawHitCheck(lookupRaw: LookupRaw): (request: FastifyRequest, raw: string) => boolean {
  return (request, raw) => {
    const tool = (request.params as { tool?: unknown } | undefined)?.tool;
    if (typeof tool !== 'string' || raw === '') return false;
    // Looked up already when the hit front read the body (src/server/hit-front.ts).
    const r = request.rawLookup ?? lookupRaw(tool, raw);
    request.rawLookup = r;
    return r.hit !== undefined;
  };
}

/**
 * A cached body with more members appended to its top-level object (e.g. a per-request
 * `"info":{"request_id":"…"}`): a cached body is `JSON.stringify` of an object that has at least
 * `timings`, so it ends in `}` after a member and the members go in before that brace. One copy
 * of the bytes, no JSON work.
 */
export function withMembers(body: Buffer, members: string): Buffer {
  const tail = Buffer.from(`,${members}}`);
  return Buffer.concat([body.subarray(0, body.length - 1), tail], body.length - 1 + tail.length);
}
