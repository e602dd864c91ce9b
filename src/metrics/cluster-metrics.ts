/**
 * The cluster's metrics (src/cluster): jobs a front sends and how long they take, what
 * workers run, redeliveries, the NATS connection's state changes and dropped messages,
 * and gauges read from the node at scrape time (live workers per environment, free slots,
 * claims held, connection state, queue depth per work subject: every subject, bounded).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What a cluster node reports at scrape time (src/cluster/node.ts gauges). */
export interface ClusterGauges {
  connected: boolean;
  /** Live workers per environment that can run Lean for it. */
  liveWorkers: Record<string, number>;
  liveWorkerCount: number;
  freeSlots: number;
  claimsHeld: number;
  /** Live workers by heartbeat (a front's view; empty on workers). */
  workers: { node: string; slots: number; busy: number; oldestJobMs: number }[];
}

/**
 * At most this many workers get series of their own (the busiest first). The `worker` label
 * is bounded by membership anyway (live workers only, series reset at each scrape); this cap
 * keeps one scrape bounded even for a very large fleet.
 */
export const WORKER_SERIES_LIMIT = 200;

export interface ClusterSources {
  queues?: () => { subject: string; pending: number; inProgress: number }[];
  cluster?: () => ClusterGauges | undefined;
}

export class ClusterMetrics {
  readonly jobs: Counter<'route'>;
  readonly roundTrip: Histogram<'tool' | 'environment'>;
  readonly #redeliveries: Counter;
  readonly #workerJobs: Histogram<'tool' | 'environment' | 'status'>;
  readonly #queueWait: Histogram<'environment'>;
  readonly #natsEvents: Counter<'event'>;
  readonly #dropped: Counter<'kind'>;

  constructor(registers: Registry[], buckets: number[], src: ClusterSources) {
    this.jobs = new Counter({
      name: 'lean_tool_cluster_jobs_total',
      help: "Jobs a front sent to the cluster: to a warm header's bucket, to its environment's queue (fallback), or joined (same request already in flight)",
      labelNames: ['route'],
      registers,
    });
    this.#redeliveries = new Counter({
      name: 'lean_tool_cluster_redeliveries_total',
      help: 'Jobs this worker received again after another delivery was not acknowledged (worker died or stalled)',
      registers,
    });
    this.roundTrip = new Histogram({
      name: 'lean_tool_cluster_job_seconds',
      help: 'Front: from queueing a job to its outcome, by tool and environment',
      labelNames: ['tool', 'environment'],
      buckets,
      registers,
    });
    this.#workerJobs = new Histogram({
      name: 'lean_tool_worker_job_seconds',
      help: 'Worker: time running a job, by tool, environment and outcome',
      labelNames: ['tool', 'environment', 'status'],
      buckets,
      registers,
    });
    this.#queueWait = new Histogram({
      name: 'lean_tool_cluster_queue_wait_seconds',
      help: "Worker: from the front queueing a job to this worker starting it (front's clock: keep clocks in sync), by environment",
      labelNames: ['environment'],
      buckets,
      registers,
    });
    this.#natsEvents = new Counter({
      name: 'lean_tool_nats_connection_events_total',
      help: 'NATS connection state changes (disconnect, reconnecting, reconnect, staleConnection, ldm, error, close)',
      labelNames: ['event'],
      registers,
    });
    this.#dropped = new Counter({
      name: 'lean_tool_cluster_dropped_messages_total',
      help: 'NATS messages dropped at the boundary (not JSON, or not matching their schema), by kind',
      labelNames: ['kind'],
      registers,
    });
    if (src.cluster) {
      nodeGauges(src.cluster, registers);
      workerGauges(src.cluster, registers);
    }
    if (src.queues) queueDepth(src.queues, registers);
  }

  readonly worker = {
    redelivered: () => this.#redeliveries.inc(),
    ran: (tool: string, environment: string, status: string, seconds: number) =>
      this.#workerJobs.observe({ tool, environment, status }, seconds),
    waited: (environment: string, seconds: number) => this.#queueWait.observe({ environment }, seconds),
  };

  readonly connection = {
    event: (event: string) => this.#natsEvents.inc({ event }),
    dropped: (kind: string) => this.#dropped.inc({ kind }),
  };
}

function queueDepth(queues: NonNullable<ClusterSources['queues']>, registers: Registry[]): void {
  new Gauge({
    name: 'lean_tool_cluster_queue_depth',
    help: 'Cluster jobs per work subject: pending (not yet delivered) and in_progress (delivered, not acknowledged)',
    labelNames: ['subject', 'state'],
    registers,
    collect() {
      this.reset();
      for (const q of queues()) {
        this.set({ subject: q.subject, state: 'pending' }, q.pending);
        this.set({ subject: q.subject, state: 'in_progress' }, q.inProgress);
      }
    },
  });
}

/** Gauges read from the cluster node at scrape time. */
function nodeGauges(read: () => ClusterGauges | undefined, registers: Registry[]): void {
  new Gauge({
    name: 'lean_tool_nats_connected',
    help: '1 while this node is connected to NATS, else 0',
    registers,
    collect() {
      const g = read();
      if (g) this.set(g.connected ? 1 : 0);
    },
  });
  new Gauge({
    name: 'lean_tool_cluster_live_workers',
    help: 'Live workers (fresh heartbeat) that can run Lean, per environment',
    labelNames: ['environment'],
    registers,
    collect() {
      this.reset();
      for (const [environment, n] of Object.entries(read()?.liveWorkers ?? {})) this.set({ environment }, n);
    },
  });
  new Gauge({
    name: 'lean_tool_cluster_workers',
    help: 'Live workers (fresh heartbeat), all environments',
    registers,
    collect() {
      this.set(read()?.liveWorkerCount ?? 0);
    },
  });
  new Gauge({
    name: 'lean_tool_cluster_free_slots',
    help: 'Job slots free on live workers, from their heartbeats',
    registers,
    collect() {
      this.set(read()?.freeSlots ?? 0);
    },
  });
  new Gauge({
    name: 'lean_tool_cluster_claims_held',
    help: 'In-flight claims this front holds (requests it computes for the cluster)',
    registers,
    collect() {
      this.set(read()?.claimsHeld ?? 0);
    },
  });
}

/** Per live worker, from its heartbeats (fronts): load and the age of its oldest running job. */
function workerGauges(read: () => ClusterGauges | undefined, registers: Registry[]): void {
  const workers = () => [...(read()?.workers ?? [])].sort((a, b) => b.busy - a.busy).slice(0, WORKER_SERIES_LIMIT);
  const perWorker = (name: string, help: string, value: (w: ClusterGauges['workers'][number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['worker'],
      registers,
      collect() {
        this.reset();
        for (const w of workers()) this.set({ worker: w.node }, value(w));
      },
    });
  perWorker('lean_tool_cluster_worker_busy_slots', 'Jobs running on each live worker (its heartbeat)', (w) => w.busy);
  perWorker('lean_tool_cluster_worker_slots', 'Job slots of each live worker (its heartbeat)', (w) => w.slots);
  perWorker(
    'lean_tool_cluster_worker_oldest_job_seconds',
    'How long the oldest job running on each live worker has run (0: idle)',
    (w) => w.oldestJobMs / 1000,
  );
}
