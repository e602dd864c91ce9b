/**
 * Body parsing: every body is parsed as JSON, whatever its Content-Type says, or without
 * one (ARCHITECTURE: "JSON in, whatever the Content-Type header says, as AXLE accepts").
 * The public AXLE client posts a JSON string with aiohttp's `data=` (labelled text/plain),
 * and AXLE's documented curl examples send `-d '{…}'` with no type, which curl labels
 * application/x-www-form-urlencoded; the hosted service accepts both. Every other check
 * stays: the body limit, fastify's prototype-poisoning refusal, and the schema.
 */
import type { FastifyInstance } from 'fastify';

export function registerBodyParsers(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('rawBody', undefined);
  // Keep the raw string too: byte-identical repeats are answered from the cache without re-validation.
  const keepRaw: typeof json = (req, body, done) => {
    (req as { rawBody?: string }).rawBody = String(body);
    json(req, body, done);
  };
  app.removeAllContentTypeParsers();
  // '*' is fastify's catch-all: any media type, and requests that carry a body without one.
  app.addContentTypeParser('*', { parseAs: 'string' }, keepRaw);
}
