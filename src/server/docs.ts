/**
 * The API reference: the OpenAPI document derived from the zod schemas (src/contract/openapi.ts),
 * served as JSON at /docs/json and as an interactive page (Swagger UI, bundled: no CDN) at /docs.
 * `GET /` points there. @fastify/swagger runs in static mode, so the document is ours, unchanged.
 *
 * Built on the first docs request, not at start: loading @fastify/swagger and @fastify/swagger-ui
 * (CommonJS packages outside the bundle; the UI plugin globs its asset folder as it registers) and
 * converting every zod schema was a large part of what the daemon's start-up adds to a bare
 * fastify app's. The docs live in a fastify instance of their own, made at the
 * first request under /docs; the daemon's routes forward to it with `inject`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildOpenApi } from '../contract/openapi.ts';

export const DOCS_PREFIX = '/docs';

/** Headers of the docs app's answer that the daemon's own reply sets itself. */
const OWN_HEADERS = new Set(['content-length', 'connection', 'transfer-encoding', 'keep-alive', 'date']);

async function docsApp(version: string): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  const docs = Fastify({ logger: false });
  await docs.register(swagger, { mode: 'static', specification: { document: buildOpenApi(version) as never } });
  // Serves /docs (the page), /docs/json and /docs/yaml (the document) and the page's assets.
  await docs.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
  });
  await docs.ready();
  return docs;
}

export async function registerDocs(app: FastifyInstance, version: string): Promise<void> {
  let docs: Promise<FastifyInstance> | undefined;
  app.addHook('onClose', async () => {
    // A docs app that failed to build has nothing to close (its requests got the error already).
    await docs?.then(
      (d) => d.close(),
      () => undefined,
    );
  });
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = await (docs ??= docsApp(version));
    const res = await inner.inject({ method: request.method as 'GET', url: request.url, headers: request.headers });
    reply.code(res.statusCode);
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !OWN_HEADERS.has(k)) reply.header(k, v);
    return reply.send(res.rawPayload);
  };
  app.get(DOCS_PREFIX, forward);
  app.get(`${DOCS_PREFIX}/*`, forward);
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
