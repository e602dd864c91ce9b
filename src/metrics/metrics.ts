/**
 * Prometheus metrics (prom-client) for `GET /metrics`, on a single machine as in a
 * cluster. Counters the daemon drives are incremented where things happen; figures other
 * modules already keep (admission queue, pool sessions, cache, cluster queues) are read
 * from their stats at scrape time, so the hot path pays for nothing it does not need.
 * One registry per app (tests build many apps in one process).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { LimiterStats } from '../admission/limiter.ts';
import type { CacheStats } from '../cache/result-cache.ts';
import { RequestSeries } from './request-series.ts';
import { ClusterMetrics, type ClusterGauges } from './cluster-metrics.ts';
import { isToolName } from '../contract/tools.ts';
import { KIMINA_TOOLS } from '../server/adapters/kimina.ts';

export type { ClusterGauges };

/** Pool figures per environment as /v1/status shows them; retirements by reason per header pool. */
export interface PoolFigures {
  idle: number;
  busy: number;
  starting: number;
  retiring?: number;
  waiting: number;
  retired: number;
  failedStarts: number;
  headers?: Record<string, { retiredBy?: Record<string, number> }>;
}

export interface MetricSources {
  admission: () => LimiterStats;
  pools: () => Record<string, PoolFigures>;
  cache: () => CacheStats;
  /** Work-queue depth per subject (fronts of a cluster). */
  queues?: () => { subject: string; pending: number; inProgress: number }[];
  /** The cluster node's figures (undefined on a single machine). */
  cluster?: () => ClusterGauges | undefined;
}

const KIMINA_NAMES: ReadonlySet<string> = new Set(Object.values(KIMINA_TOOLS));

/** The names labelled as themselves: contract tools and Kimina's routes (anything else is `other`). */
const isKnownTool = (tool: string): boolean => isToolName(tool) || KIMINA_NAMES.has(tool);

const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900,
];

export class Metrics {
  readonly registry = new Registry();
  /** Recorded per request without prom-client (the hit path is hot), formatted at scrape. */
  readonly #perRequest = new RequestSeries(LATENCY_BUCKETS, isKnownTool);
  readonly #sharedCache: Counter<'result'>;
  readonly #cluster: ClusterMetrics;

  constructor(src: MetricSources) {
    const registers = [this.registry];
    // prom-client's default names already start with process_ or nodejs_: the prefix adds only our namespace.
    collectDefaultMetrics({ register: this.registry, prefix: 'lean_tool_' });
    this.#perRequest.registerCounter(
      this.registry,
      'lean_tool_requests_total',
      'Tool requests answered, by tool and HTTP status',
    );
    this.#perRequest.registerHistogram(
      this.registry,
      'lean_tool_request_duration_seconds',
      'Tool request latency at the HTTP edge, by tool and cache outcome',
    );
    admissionGauge(registers, src);
    sessionMetrics(registers, src);
    cacheMetrics(registers, src);
    this.#sharedCache = new Counter({
      name: 'lean_tool_shared_cache_lookups_total',
      help: 'Shared (cluster KV) result cache lookups after a local miss, by result',
      labelNames: ['result'],
      registers,
    });
    this.#cluster = new ClusterMetrics(registers, LATENCY_BUCKETS, src);
  }

  request(tool: string, status: number, cache: string | undefined, seconds: number): void {
    this.#perRequest.record(tool, status, cache, seconds);
  }

  // The cluster's observers (src/cluster front, worker and connection).
  readonly front = {
    sharedCache: (result: 'hit' | 'miss') => this.#sharedCache.inc({ result }),
    submitted: (route: 'warm' | 'fallback') => this.#cluster.jobs.inc({ route }),
    joined: () => this.#cluster.jobs.inc({ route: 'joined' }),
    roundTrip: (tool: string, environment: string, seconds: number) =>
      this.#cluster.roundTrip.observe({ tool, environment }, seconds),
  };

  get worker() {
    return this.#cluster.worker;
  }

  get connection() {
    return this.#cluster.connection;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Requests holding or waiting for an admission slot, read from the limiter at scrape. */
function admissionGauge(registers: Registry[], src: MetricSources): void {
  new Gauge({
    name: 'lean_tool_admission_requests',
    help: 'Requests holding (active) or waiting for (queued) an admission slot',
    labelNames: ['state'],
    registers,
    collect() {
      const a = src.admission();
      this.set({ state: 'active' }, a.active);
      this.set({ state: 'queued' }, a.queued);
    },
  });
}

/** Lean sessions by state, their waiters and retirements, read from the pools at scrape. */
function sessionMetrics(registers: Registry[], src: MetricSources): void {
  new Gauge({
    name: 'lean_tool_sessions',
    help: 'Lean sessions by environment and state (retiring: replaced, or killed and not yet exited)',
    labelNames: ['environment', 'state'],
    registers,
    collect() {
      this.reset();
      for (const [environment, p] of Object.entries(src.pools())) {
        for (const state of ['idle', 'busy', 'starting', 'retiring'] as const)
          this.set({ environment, state }, p[state] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'lean_tool_session_waiters',
    help: 'Requests waiting for a Lean session',
    labelNames: ['environment'],
    registers,
    collect() {
      this.reset();
      for (const [environment, p] of Object.entries(src.pools())) this.set({ environment }, p.waiting);
    },
  });
  new Counter({
    name: 'lean_tool_session_retirements_total',
    help: 'Lean sessions retired, by reason (failed_start: never became ready)',
    labelNames: ['environment', 'reason'],
    registers,
    collect() {
      this.reset();
      for (const [environment, p] of Object.entries(src.pools())) {
        for (const [reason, n] of Object.entries(retirementsByReason(p))) if (n) this.inc({ environment, reason }, n);
        if (p.failedStarts) this.inc({ environment, reason: 'failed_start' }, p.failedStarts);
      }
    },
  });
}

/** An environment's retirements summed over its header pools; those no reason names, as `unspecified`. */
function retirementsByReason(p: PoolFigures): Record<string, number> {
  const by: Record<string, number> = {};
  for (const h of Object.values(p.headers ?? {}))
    for (const [reason, n] of Object.entries(h.retiredBy ?? {})) by[reason] = (by[reason] ?? 0) + n;
  const named = Object.values(by).reduce((a, n) => a + n, 0);
  if (p.retired > named) by.unspecified = p.retired - named;
  return by;
}

/** The local result cache's lookups and bytes, read from its stats at scrape. */
function cacheMetrics(registers: Registry[], src: MetricSources): void {
  new Counter({
    name: 'lean_tool_cache_lookups_total',
    help: 'Local result cache lookups, by result',
    labelNames: ['result'],
    registers,
    collect() {
      this.reset();
      const c = src.cache();
      this.inc({ result: 'hit' }, c.hits);
      this.inc({ result: 'miss' }, c.misses);
    },
  });
  new Gauge({
    name: 'lean_tool_cache_bytes',
    help: 'Bytes held by the local result cache',
    registers,
    collect() {
      this.set(src.cache().bytes);
    },
  });
}
