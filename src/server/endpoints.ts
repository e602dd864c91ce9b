/** `GET /v1/endpoints` (src/contract/endpoints.ts): computed once, on the first request; needs no key. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../admission/keys.ts';
import { endpointsMetadata } from '../contract/endpoints.ts';

export function registerEndpoints(app: FastifyInstance, authorizeListing: (request: FastifyRequest) => Caller): void {
  let body: string | undefined;
  app.get('/v1/endpoints', (request, reply) => {
    authorizeListing(request);
    body ??= JSON.stringify(endpointsMetadata());
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
