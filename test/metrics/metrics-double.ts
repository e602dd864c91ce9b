/** A Metrics over idle sources, a cluster node's included, whose live workers the caller gives (tests only). */
import type { ClusterGauges } from '../../src/metrics/cluster-metrics.ts';
import { Metrics } from '../../src/metrics/metrics.ts';

export function metricsOf(workers: () => ClusterGauges['workers']): Metrics {
  return new Metrics({
    admission: () => ({ active: 0, queued: 0 }) as never,
    pools: () => ({}),
    cache: () => ({ hits: 0, misses: 0, bytes: 0 }) as never,
    queues: () => [],
    cluster: () => ({
      connected: true,
      liveWorkers: {},
      liveWorkerCount: 0,
      freeSlots: 0,
      claimsHeld: 0,
      workers: workers(),
    }),
  });
}
