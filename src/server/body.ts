/**
 * Body parsing. application/json is fastify's own (prototype-poisoning safe) parser.
 * text/plain is parsed as JSON too: the public AXLE client posts a JSON string with
 * aiohttp's `data=`, which labels it text/plain. Anything else is 415.
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
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, keepRaw);
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, keepRaw);
}
