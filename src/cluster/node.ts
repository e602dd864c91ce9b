/**
 * This daemon's part in a cluster, built by the composition root when a NATS URL is
 * configured: a front (an executor for the pipeline), a worker, or both; plus the
 * cluster view `/v1/status` shows on a front and the readiness `/health/ready` reports.
 * Imported lazily: a single machine never loads the NATS client.
 */
import { hostname } from 'node:os';
import type { LeanRunner } from '../backend/index.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';
import type { Log } from '../log.ts';
import type { ToolTable } from '../tools/types.ts';
import { effectiveSlots, type ClusterConfig } from './config.ts';
import { openCluster, type ClusterConnection } from './connection.ts';
import { ClusterFront, type FrontObserver } from './front.ts';
import { ConnectionHealth, type ConnectionObserver } from './health.ts';
import { Membership } from './membership.ts';
import { readiness, type Readiness } from './readiness.ts';
import { ClusterWorker, type WorkerDeps } from './worker.ts';
import type { SearchService } from '../search/service.ts';
import { RemoteSearch } from './search-lease.ts';
import { SearchLeases } from './search-worker.ts';

export interface ClusterNodeDeps {
  config: ClusterConfig;
  /** The Lean session limits: a worker's slots derive from them (config.ts effectiveSlots). */
  leanLimits: { maxSessions: number; maxProcesses: number };
  registry: EnvironmentRegistry;
  tools: ToolTable;
  lean: LeanRunner;
  log: Log;
  frontObserver?: FrontObserver;
  workerObserver?: WorkerDeps['observer'];
  connectionObserver?: ConnectionObserver & { dropped(kind: string): void };
  pools?: WorkerDeps['pools'];
  /** The daemon's body limit (server.bodyLimitBytes): a NATS max_payload below it is warned about at start. */
  bodyLimitBytes?: number;
  /** Proof search: a front pins each search's process to a worker; a worker leases its processes to fronts. */
  search?: SearchService;
}

export interface QueueDepth {
  subject: string;
  pending: number;
  inProgress: number;
  redelivered: number;
}

export class ClusterNode {
  readonly front: ClusterFront | undefined;
  readonly worker: ClusterWorker | undefined;
  readonly health: ConnectionHealth;
  /** A worker's proof search leases held for fronts. */
  readonly searchLeases: SearchLeases | undefined;
  #queues: QueueDepth[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Environments some live worker could run Lean for since start: losing the last one makes a front unready. */
  #servedEver = new Set<string>();

  private constructor(
    readonly nodeId: string,
    private readonly c: ClusterConnection,
    readonly members: Membership,
    private readonly deps: ClusterNodeDeps,
    log: Log,
  ) {
    const role = deps.config.role;
    this.health = new ConnectionHealth(c.nc, c.jsm, log, deps.connectionObserver, () => c.resources.verify());
    if (role !== 'worker')
      this.front = new ClusterFront(c, members, {
        nodeId,
        log,
        health: this.health,
        ...(deps.frontObserver ? { observer: deps.frontObserver } : {}),
      });
    if (role !== 'front')
      this.worker = new ClusterWorker(c, members, nodeId, {
        registry: deps.registry,
        tools: deps.tools,
        lean: deps.lean,
        log,
        slots: effectiveSlots(deps.config, deps.leanLimits),
        health: this.health,
        ...(deps.workerObserver ? { observer: deps.workerObserver } : {}),
        ...(deps.pools ? { pools: deps.pools } : {}),
      });
    this.searchLeases = this.#pinSearch(c, nodeId, log);
  }

  /** Proof search across the cluster: see src/cluster/search-lease.ts (front) and search-worker.ts (worker). */
  #pinSearch(c: ClusterConnection, nodeId: string, log: Log): SearchLeases | undefined {
    const search = this.deps.search;
    if (!search) return undefined;
    const leases =
      this.deps.config.role === 'front'
        ? undefined
        : new SearchLeases(c, nodeId, {
            lease: (env, header, signal) => search.localLease(env, header, signal),
            environment: (name) => search.localEnvironment(name),
            idleMs: search.config.stateTtlSeconds * 1000,
            log,
          });
    if (this.front) {
      const remote = new RemoteSearch(c, this.members);
      search.pin({
        lease: (env, header, signal, prefer) => remote.lease(env, header, signal, prefer),
        available: (e) => remote.available(e),
      });
    }
    return leases;
  }

  static async start(deps: ClusterNodeDeps): Promise<ClusterNode> {
    const nodeId = deps.config.nodeId ?? `${hostname().replace(/[^A-Za-z0-9_-]/g, '_')}-${process.pid}`;
    const log = deps.log.child({ node: nodeId, role: deps.config.role });
    // Every message dropped at the boundary is counted; logged at most once a second per kind
    // (with how many were dropped since), so a stray publisher cannot flood the log.
    const lastLogged = new Map<string, { at: number; since: number }>();
    const drop = (kind: string, reason: string) => {
      deps.connectionObserver?.dropped(kind);
      const l = lastLogged.get(kind) ?? { at: 0, since: 0 };
      l.since++;
      if (Date.now() - l.at >= 1000) {
        log.warn({ kind, reason, dropped: l.since }, 'dropped a NATS message that does not match its schema');
        l.at = Date.now();
        l.since = 0;
      }
      lastLogged.set(kind, l);
    };
    const c = await openCluster(deps.config, nodeId, drop, log);
    const node = new ClusterNode(nodeId, c, new Membership(c), deps, log);
    const maxPayload = c.nc.info?.max_payload;
    if (node.front && deps.bodyLimitBytes && maxPayload !== undefined && maxPayload < deps.bodyLimitBytes)
      log.warn(
        { maxPayload, bodyLimitBytes: deps.bodyLimitBytes },
        `NATS max_payload (${maxPayload} bytes) is below server.bodyLimitBytes (${deps.bodyLimitBytes}): ` +
          'larger requests get 413 from this front; raise max_payload (deploy/nats/nats.conf) to align them',
      );
    node.worker?.start();
    if (node.front) {
      // Queue depth for status and metrics, refreshed in the background (status stays synchronous).
      const refresh = () => void node.#refreshQueues().catch((err: unknown) => node.health.jetstreamFailed(err));
      refresh();
      node.#timer = setInterval(refresh, deps.config.heartbeatMs);
      node.#timer.unref();
    }
    return node;
  }

  async #refreshQueues(): Promise<void> {
    const queues: QueueDepth[] = [];
    // Every page (the consumers are bounded by environments × buckets, not by headers seen).
    for await (const i of this.c.jsm.consumers.list(this.c.names.stream))
      queues.push({
        subject: i.config.filter_subject ?? i.name,
        pending: i.num_pending,
        inProgress: i.num_ack_pending,
        redelivered: i.num_redelivered,
      });
    this.health.jetstreamOk();
    this.#queues = queues;
  }

  /** A front's view of environments: available where a live worker can run Lean for them (the front itself runs none). */
  environments<E extends { name: string; available: boolean; unavailable_reason?: string }>(local: E[]): E[] {
    if (!this.front || this.worker) return local;
    return local.map((e) => {
      const { unavailable_reason: _r, ...rest } = e;
      const a = this.members.environmentAvailable(e.name);
      if (a === true) return { ...rest, available: true } as E;
      return {
        ...rest,
        available: false,
        unavailable_reason:
          a === undefined
            ? 'no live worker in the cluster (requests are refused with 503 until one joins)'
            : 'no live worker in the cluster can run Lean for it',
      } as E;
    });
  }

  queues(): QueueDepth[] {
    return this.#queues;
  }

  /** Readiness of this node (readiness.ts): NATS, JetStream, and workers per environment or local Lean. */
  readiness(): Readiness {
    const perEnv = this.members.workersPerEnvironment();
    for (const [env, n] of Object.entries(perEnv)) if (n > 0) this.#servedEver.add(env);
    return readiness({
      role: this.c.config.role,
      connected: this.health.connected(),
      jetstream: this.health.jetstream(),
      resourcesMissing: this.c.resources.missing(),
      liveWorkers: this.members.live().length,
      workersPerEnvironment: perEnv,
      servedEver: this.#servedEver,
      localLean: Object.fromEntries(
        this.deps.registry.names().map((n) => [n, this.deps.registry.availability(n).available]),
      ),
    });
  }

  /** Figures for metrics gauges. */
  gauges() {
    return {
      connected: this.health.connected(),
      liveWorkers: this.members.workersPerEnvironment(),
      liveWorkerCount: this.members.live().length,
      freeSlots: this.members.live().reduce((a, m) => a + Math.max(0, m.slots - m.busy), 0),
      claimsHeld: this.front?.claims.held() ?? 0,
      // Per worker on fronts only (every node sees the heartbeats; one exporter kind avoids double counting).
      workers: this.front
        ? this.members
            .live()
            .map((m) => ({ node: m.node, slots: m.slots, busy: m.busy, oldestJobMs: m.oldestJobMs ?? 0 }))
        : [],
    };
  }

  status(): Record<string, unknown> {
    return {
      node: this.nodeId,
      role: this.c.config.role,
      connected: this.health.connected(),
      max_payload: this.c.nc.info?.max_payload,
      jetstream: this.health.jetstream(),
      connection_events: this.health.events(),
      resources: this.c.resources.stats(),
      // The same verdict as /health/ready: `connected` alone said nothing of workers.
      readiness: (({ ready, reasons }) => ({ ready, reasons }))(this.readiness()),
      ...(this.front ? { submitted: this.front.stats() } : {}),
      ...(this.worker ? { worker: this.worker.stats() } : {}),
      workers: this.members.live().map((m) => ({
        node: m.node,
        slots: m.slots,
        busy: m.busy,
        warm: m.warm,
        done: m.done,
        oldest_job_ms: m.oldestJobMs ?? 0,
        environments: m.environments,
        last_heartbeat_ms: Date.now() - m.seenAt,
      })),
      queues: this.#queues,
    };
  }

  /** Drain: stop pulling, finish running jobs, then leave NATS. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.health.close();
    this.c.resources.close();
    this.searchLeases?.close();
    await this.worker?.close();
    this.front?.close();
    this.members.close();
    await this.c.nc.drain().catch(() => {});
  }

  /** Crash-like stop (tests): no acknowledgements, no answers, connection dropped. */
  async kill(): Promise<void> {
    clearInterval(this.#timer);
    this.health.close();
    this.c.resources.close();
    this.searchLeases?.close();
    this.worker?.kill();
    this.members.close();
    await this.c.nc.close().catch(() => {});
  }
}
