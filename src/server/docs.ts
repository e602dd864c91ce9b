/**
 * The API reference: the OpenAPI document derived from the zod schemas (src/contract/openapi.ts),
 * served as JSON at /docs/json and as an interactive page (Swagger UI, bundled: no CDN) at /docs.
 * `GET /` points there. @fastify/swagger runs in static mode, so the document is ours, unchanged.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { buildOpenApi } from '../contract/openapi.ts';

export const DOCS_PREFIX = '/docs';

export async function registerDocs(app: FastifyInstance, version: string): Promise<void> {
  // Built on the first docs request, not at start: converting every zod schema costs startup time.
  // @fastify/swagger serves the object it is given by reference, so it is filled in place then.
  const document: Record<string, unknown> = {};
  await app.register(async (docs) => {
    docs.addHook('onRequest', async () => {
      if (!('openapi' in document)) Object.assign(document, buildOpenApi(version));
    });
    await docs.register(swagger, { mode: 'static', specification: { document: document as never } });
    // Serves /docs (the page), /docs/json and /docs/yaml (the document) and the page's assets.
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
    });
  });
  app.get('/', (_request, reply) =>
    reply
      .code(302)
      .header('location', DOCS_PREFIX)
      .send({
        name: 'Lean tool service',
        version,
        docs: DOCS_PREFIX,
        openapi: `${DOCS_PREFIX}/json`,
        environments: '/v1/environments',
        status: '/v1/status',
        tools: 'POST /api/v1/<tool>',
      }),
  );
}
