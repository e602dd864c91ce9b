/**
 * Body parsing: every body is parsed as JSON, whatever its Content-Type says, or without
 * one (ARCHITECTURE: "JSON in, whatever the Content-Type header says, as AXLE accepts").
 * The public AXLE client posts a JSON string with aiohttp's `data=` (labelled text/plain),
 * and AXLE's documented curl examples send `-d '{…}'` with no type, which curl labels
 * application/x-www-form-urlencoded; the hosted service accepts both. Every other check
 * stays: the body limit, fastify's prototype-poisoning refusal, and the schema.
 */
import type { FastifyInstance } from 'fastify';
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

export function registerBodyParsers(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('rawBody', undefined);
  // Keep the raw string too: byte-identical repeats are answered from the cache without re-validation.
  const keepRaw: typeof json = (req, body, done) => {
    const raw = String(body);
    (req as { rawBody?: string }).rawBody = raw;
    json(req, body, (err, parsed) => {
      if ((err as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
        done(malformed(raw, req.headers['content-type']), undefined);
      else done(err, parsed);
    });
  };
  app.removeAllContentTypeParsers();
  // '*' is fastify's catch-all: any media type, and requests that carry a body without one.
  app.addContentTypeParser('*', { parseAs: 'string' }, keepRaw);
}
