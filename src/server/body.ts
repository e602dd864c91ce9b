/**
 * Body parsing. application/json is fastify's own (prototype-poisoning safe) parser.
 * text/plain is parsed as JSON too: the public AXLE client posts a JSON string with
 * aiohttp's `data=`, which labels it text/plain. Anything else is 415.
 */
import type { FastifyInstance } from 'fastify';

export function registerBodyParsers(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, json);
}
