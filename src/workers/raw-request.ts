/**
 * A large request body read on a worker thread: parsed, counted against the input limits,
 * validated and keyed there, so that an allowed 100k-entry map or list costs the main thread
 * none of it (src/server/deferred-body.ts decides which bodies come here). Each step is the
 * main thread's own for a small body, in the same order, with the same errors: fastify's JSON
 * parser (secure-json-parse, prototype poisoning refused), checkInputLimits, parseToolRequest,
 * the cache's local key.
 */
import sjson from 'secure-json-parse';
import { checkInputLimits, type InputLimits } from '../admission/input-limits.ts';
import { localCacheKey } from '../cache/result-cache.ts';
import { withoutLargeFields } from '../contract/large-fields.ts';
import type { ToolName } from '../contract/tools.ts';
import { parseToolRequest } from '../contract/validate.ts';

/** The body is not JSON the daemon takes: `reason` is JSON's own, or null for a prototype-poisoning key. */
export class MalformedBody extends Error {
  constructor(readonly reason: string | null) {
    super(reason ?? 'prototype poisoning');
    this.name = 'MalformedBody';
  }
}

/**
 * A tool's result as its JSON text: what a run from a large body sends back (its answer is
 * often large too: a rename map's not-found names), so the main thread neither rebuilds it as
 * objects nor serialises it again for the cache and the response.
 */
export class SerializedResult {
  constructor(readonly json: string) {}
}

/** What the main thread gets back for a large body: what it needs to route it, never the large fields. */
export interface RawPrepared {
  /** The validated request without its large collections (large-fields.ts withoutLargeFields). */
  request: Record<string, unknown>;
  /** Its cache key (ResultCache.localKey). */
  key: string;
}

const POISONING = { protoAction: 'error', constructorAction: 'error' } as const;

/**
 * The body as fastify's default parser reads it (protoAction and constructorAction 'error'):
 * JSON.parse for the reason a malformed body gives, then secure-json-parse's scan for the keys
 * it refuses (its parse skips the scan when a pattern test of the text finds none; the scan
 * alone is the same rule).
 */
function parseBody(raw: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (e) {
    throw new MalformedBody((e as Error).message);
  }
  try {
    if (body !== null && typeof body === 'object') sjson.scan(body, POISONING);
  } catch {
    throw new MalformedBody(null);
  }
  return body;
}

/** Parsed and validated as the main thread would: throws MalformedBody or the validation's ServiceError. */
export function requestFromRaw(tool: ToolName, raw: string, limits: InputLimits): Record<string, unknown> {
  const body = parseBody(raw);
  checkInputLimits(body, limits);
  return parseToolRequest(tool, body) as Record<string, unknown>;
}

/** The prepare step of a large body: validated, keyed, and its large fields left here. */
export function prepareRaw(tool: ToolName, raw: string, limits: InputLimits): RawPrepared {
  const request = requestFromRaw(tool, raw, limits);
  const environment = request.environment as string;
  return { request: withoutLargeFields(request), key: localCacheKey(tool, environment, request) };
}
