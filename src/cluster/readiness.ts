/**
 * Whether a cluster node should get traffic (`/health/ready`), from what it knows now:
 * - every node: its NATS connection is up and JetStream answered lately;
 * - a front: some live worker exists, and every environment some worker served since start
 *   still has one (the last worker of an environment gone makes the front unready: its
 *   requests would all be refused);
 * - a worker: Lean can run here for at least one configured environment.
 * Heartbeats go stale after heartbeatMs × missedHeartbeats (3 s by default) and a dropped
 * connection is seen at once (a silent one within three ping intervals), so readiness follows a
 * loss within 5 s, and recovers by itself when the cause does.
 */
import type { Role } from './config.ts';

export interface Readiness {
  ready: boolean;
  /** Why not ready (empty when ready). */
  reasons: string[];
  checks: Record<string, unknown>;
}

export interface ReadinessInputs {
  role: Role;
  connected: boolean;
  jetstream: { ok: boolean; error?: string; last_ok_ms: number };
  /** Why the stream or buckets are not usable (lost with NATS's store, being recreated), if so. */
  resourcesMissing?: string | undefined;
  liveWorkers: number;
  /** Live workers per environment that can run Lean for it. */
  workersPerEnvironment: Record<string, number>;
  servedEver: ReadonlySet<string>;
  /** This node's own environments and whether Lean runs for each here. */
  localLean: Record<string, boolean>;
}

export function readiness(s: ReadinessInputs): Readiness {
  const reasons: string[] = [];
  if (!s.connected) reasons.push('NATS is unreachable');
  else if (!s.jetstream.ok)
    reasons.push(
      `JetStream has not answered for ${s.jetstream.last_ok_ms} ms${s.jetstream.error ? `: ${s.jetstream.error}` : ''}`,
    );
  else if (s.resourcesMissing) reasons.push(s.resourcesMissing);
  if (s.role !== 'worker') {
    if (s.liveWorkers === 0) reasons.push('no live worker in the cluster');
    for (const env of s.servedEver)
      if (!s.workersPerEnvironment[env]) reasons.push(`no live worker can run Lean for environment ${env} any more`);
  }
  if (s.role !== 'front' && !Object.values(s.localLean).some(Boolean))
    reasons.push('Lean cannot run here for any configured environment');
  return {
    ready: reasons.length === 0,
    reasons,
    checks: {
      nats: s.connected,
      jetstream: s.jetstream,
      ...(s.resourcesMissing ? { jetstream_resources: s.resourcesMissing } : {}),
      ...(s.role !== 'worker' ? { live_workers: s.liveWorkers, workers_per_environment: s.workersPerEnvironment } : {}),
      ...(s.role !== 'front' ? { local_lean: s.localLean } : {}),
    },
  };
}
