/** Metrics over HTTP: a counter per answered tool request, and `GET /metrics` (Prometheus text). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.ts';

export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  authorize: (request: FastifyRequest) => unknown,
): void {
  // Callback style, not async: no promise per request on the hot (cache-hit) path.
  app.addHook('onResponse', (request, reply, done) => {
    const tool = request.svc?.tool;
    if (tool !== undefined) metrics.request(tool, reply.statusCode, request.svc.cache, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', async (request, reply) => {
    authorize(request);
    const m = await metrics.render();
    return reply.type(m.contentType).send(m.body);
  });
}
