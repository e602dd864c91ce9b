/**
 * Large bodies are parsed off the main thread. An allowed body with a 100k-entry map or list
 * cost the main thread, per request, JSON.parse, the limit count, the validation loop, the
 * canonical cache key (sorting every key) and the structured clone to a worker: every other
 * caller waited for all of it (docs/hostile-input.md has the figures). What grows is the
 * entries, not the bytes: a large content with small fields costs a fraction of that. Such a
 * body, counted on its raw text (admission/raw-limits.ts, one pass, no allocation), is left
 * unparsed: a worker thread parses, validates and keys it (src/workers/raw-request.ts) and
 * sends back only the small fields the pipeline routes by; the tool then runs on a worker from
 * the same text, and its answer comes back as text.
 */
import type { FastifyRequest } from 'fastify';
import { rawScan } from '../admission/raw-limits.ts';
import type { InputLimits } from '../admission/input-limits.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's body may be left unparsed for a worker thread (a DeferredBody): the tool routes. */
    deferLargeBody?: boolean;
  }
}

/**
 * A body whose largest top-level list or map has at least this many entries is parsed on a
 * worker. Below it the main thread's whole share is small (the validation's loop, the key and
 * the parse are linear, a few µs per entry at most); above it the hop (copying the text to
 * a worker, twice) is cheaper than the objects built here.
 */
export const OFF_THREAD_ENTRIES = 4096;

/**
 * A tool request's body left unparsed: its text, and the type it came labelled with (for a
 * malformed_json error); null for a stream message's request, whose caller words that error.
 */
export class DeferredBody {
  constructor(
    readonly raw: string,
    readonly contentType: string | undefined | null,
  ) {}
}

/**
 * The body parser's screen (body.ts `screenRaw`): the limit error counted on the raw text, a
 * DeferredBody for a tool route's body with a large collection when `offThread(tool)` (the
 * pipeline can parse it on a worker), else undefined (parsed here).
 */
export function screenBody(
  raw: string,
  request: FastifyRequest,
  limits: InputLimits,
  offThread: (tool: string) => boolean,
): Error | DeferredBody | undefined {
  const scan = rawScan(raw, limits);
  if (scan.error) return scan.error;
  if (scan.entries < OFF_THREAD_ENTRIES || request.routeOptions.config?.deferLargeBody !== true) return undefined;
  const tool = (request.params as { tool?: unknown } | undefined)?.tool;
  return typeof tool === 'string' && offThread(tool)
    ? new DeferredBody(raw, request.headers['content-type'])
    : undefined;
}
