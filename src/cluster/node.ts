/**
 * This daemon's part in a cluster, built by the composition root when a NATS URL is
 * configured: a front (an executor for the pipeline), a worker, or both; plus the
 * cluster view `/v1/status` shows on a front. Imported lazily: a single machine never
 * loads the NATS client.
 */
import { hostname } from 'node:os';
import type { LeanRunner } from '../backend/index.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';
import type { Log } from '../log.ts';
import type { ToolTable } from '../tools/types.ts';
import type { ClusterConfig } from './config.ts';
import { openCluster, type ClusterConnection } from './connection.ts';
import { ClusterFront, type FrontObserver } from './front.ts';
import { Membership } from './membership.ts';
import { ClusterWorker, type WorkerDeps } from './worker.ts';

export interface ClusterNodeDeps {
  config: ClusterConfig;
  registry: EnvironmentRegistry;
  tools: ToolTable;
  lean: LeanRunner;
  log: Log;
  frontObserver?: FrontObserver;
  workerObserver?: WorkerDeps['observer'];
  pools?: WorkerDeps['pools'];
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
  #queues: QueueDepth[] = [];
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    readonly nodeId: string,
    private readonly c: ClusterConnection,
    readonly members: Membership,
    deps: ClusterNodeDeps,
  ) {
    const role = deps.config.role;
    const log = deps.log.child({ node: nodeId, role });
    if (role !== 'worker')
      this.front = new ClusterFront(c, members, {
        nodeId,
        log,
        ...(deps.frontObserver ? { observer: deps.frontObserver } : {}),
      });
    if (role !== 'front')
      this.worker = new ClusterWorker(c, members, nodeId, {
        registry: deps.registry,
        tools: deps.tools,
        lean: deps.lean,
        log,
        ...(deps.workerObserver ? { observer: deps.workerObserver } : {}),
        ...(deps.pools ? { pools: deps.pools } : {}),
      });
  }

  static async start(deps: ClusterNodeDeps): Promise<ClusterNode> {
    const nodeId = deps.config.nodeId ?? `${hostname().replace(/[^A-Za-z0-9_-]/g, '_')}-${process.pid}`;
    const c = await openCluster(deps.config, nodeId);
    const node = new ClusterNode(nodeId, c, new Membership(c), deps);
    node.worker?.start();
    if (node.front) {
      // Queue depth for status and metrics, refreshed in the background (status stays synchronous).
      const refresh = () => void node.#refreshQueues().catch(() => {});
      refresh();
      node.#timer = setInterval(refresh, deps.config.heartbeatMs);
      node.#timer.unref();
    }
    return node;
  }

  async #refreshQueues(): Promise<void> {
    const infos = await this.c.jsm.consumers.list(this.c.names.stream).next();
    this.#queues = infos.map((i) => ({
      subject: i.config.filter_subject ?? i.name,
      pending: i.num_pending,
      inProgress: i.num_ack_pending,
      redelivered: i.num_redelivered,
    }));
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
            ? 'no live worker in the cluster yet (jobs wait in the queue until one joins)'
            : 'no live worker in the cluster can run Lean for it',
      } as E;
    });
  }

  queues(): QueueDepth[] {
    return this.#queues;
  }

  status(): Record<string, unknown> {
    return {
      node: this.nodeId,
      role: this.c.config.role,
      connected: !this.c.nc.isClosed(),
      ...(this.front ? { submitted: this.front.stats() } : {}),
      ...(this.worker ? { worker: this.worker.stats() } : {}),
      workers: this.members.live().map((m) => ({
        node: m.node,
        slots: m.slots,
        busy: m.busy,
        warm: m.warm,
        done: m.done,
        environments: m.environments,
        last_heartbeat_ms: Date.now() - m.seenAt,
      })),
      queues: this.#queues,
    };
  }

  /** Drain: stop pulling, finish running jobs, then leave NATS. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.worker?.close();
    this.front?.close();
    this.members.close();
    await this.c.nc.drain().catch(() => {});
  }

  /** Crash-like stop (tests): no acknowledgements, no answers, connection dropped. */
  async kill(): Promise<void> {
    clearInterval(this.#timer);
    this.worker?.kill();
    this.members.close();
    await this.c.nc.close().catch(() => {});
  }
}
