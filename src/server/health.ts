/**
 * Liveness and readiness for orchestrators (k8s probes, Docker HEALTHCHECK), distinct:
 * - `GET /health/live`: the process answers HTTP (its event loop runs). Never fails on a
 *   dependency: restarting a daemon because NATS is down would not bring NATS back.
 * - `GET /health/ready`: whether this instance should get traffic now: 503 with the reasons
 *   while shutting down, or when its dependencies say no (the cluster's readiness on a
 *   front or worker; on a single machine, that Lean can run for some environment).
 * No API key: probes carry none, and the answers hold no request data. (`GET /health` is
 * Kimina's route, served by its adapter.)
 */
import type { FastifyInstance } from 'fastify';

export interface ReadinessReport {
  ready: boolean;
  reasons: string[];
  checks: Record<string, unknown>;
}

/** A single machine's readiness: Lean runs for at least one configured environment (or none is configured). */
export function localReadiness(envs: { name: string; available: boolean }[]): ReadinessReport {
  const lean = Object.fromEntries(envs.map((e) => [e.name, e.available]));
  const ready = envs.length === 0 || envs.some((e) => e.available);
  return {
    ready,
    reasons: ready ? [] : ['Lean cannot run here for any configured environment'],
    checks: { local_lean: lean },
  };
}

export function registerHealth(
  app: FastifyInstance,
  opts: { closing: () => boolean; ready: () => ReadinessReport },
): void {
  app.get('/health/live', async () => ({ status: 'live' }));
  app.get('/health/ready', async (_request, reply) => {
    const r: ReadinessReport = opts.closing() ? { ready: false, reasons: ['shutting down'], checks: {} } : opts.ready();
    return reply.code(r.ready ? 200 : 503).send({ status: r.ready ? 'ready' : 'not_ready', ...r });
  });
}
