/**
 * Body parsing: every body is parsed as JSON, whatever its Content-Type says, or without
 * one (ARCHITECTURE: "JSON in, whatever the Content-Type header says, as AXLE accepts").
 * The public AXLE client posts a JSON string with aiohttp's `data=` (labelled text/plain),
 * and AXLE's documented curl examples send `-d '{…}'` with no type, which curl labels
 * application/x-www-form-urlencoded; the hosted service accepts both. Every other check
 * stays: the body limit, fastify's prototype-poisoning refusal, and the schema.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clip, serviceError } from '../errors.ts';

/**
 * fastify's JSON parser says "content-type is set to 'application/json'" whatever the request
 * sent; the error names the type the body really came with, and JSON's own reason (parsed again
 * only on this error path).
 */
function malformed(body: string, contentType: string | undefined): Error {
  // Valid JSON refused all the same: fastify's prototype-poisoning rule (protoAction 'error').
  let reason = 'it holds a "__proto__" or "constructor.prototype" key, refused as prototype poisoning';
  try {
    JSON.parse(body);
  } catch (e) {
    reason = clip((e as Error).message, 160);
  }
  return serviceError('malformed_json', 'body_as', {
    reason,
    type: contentType ? `as ${clip(contentType.split(';')[0]!.trim(), 60)}` : 'without a Content-Type',
  });
}

/** The body of a request answered from the cache before parsing (src/server/hit-path.ts): nothing was parsed. */
export const UNPARSED_HIT = Object.freeze({});

export interface BodyParserOptions {
  /** Asked before parsing: true means the raw bytes already have their answer and are not parsed. */
  answeredRaw?: (request: FastifyRequest, raw: string) => boolean;
  /** Asked before parsing: an error refuses the body unparsed (input limits counted on the text, issue 23). */
  refusedRaw?: (raw: string) => Error | undefined;
}

export function registerBodyParsers(app: FastifyInstance, opts: BodyParserOptions = {}): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('rawLookup', undefined);
  const answeredRaw = opts.answeredRaw;
  // Keep the raw string too: byte-identical repeats are answered from the cache without parsing or validation.
  const keepRaw: typeof json = (req, body, done) => {
    const raw = String(body);
    (req as { rawBody?: string }).rawBody = raw;
    if (answeredRaw?.(req, raw)) return done(null, UNPARSED_HIT);
    const refused = opts.refusedRaw?.(raw);
    if (refused) return done(refused, undefined);
    json(req, body, (err, parsed) => {
      if ((err as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
        done(malformed(raw, req.headers['content-type']), undefined);
      else done(err, parsed);
    });
  };
  app.removeAllContentTypeParsers();
  // '*' is fastify's catch-all: any media type, and requests that carry a body without one.
  app.addContentTypeParser('*', { parseAs: 'string' }, keepRaw);
  // The same parser named for the usual type too: fastify caches a named type's parser by the
  // header's text, while the catch-all is found anew (content-type parsed, two cache misses)
  // on every request, ~2% of a cache hit's CPU.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, keepRaw);
}
