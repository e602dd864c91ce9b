/**
 * The `cluster` section of the configuration: which role this daemon plays and how it
 * reaches NATS. The default (`both`, no NATS URL) is the single-machine daemon, which
 * never loads a NATS client.
 */
import { z } from 'zod';

export const ROLES = ['front', 'worker', 'both'] as const;
export type Role = (typeof ROLES)[number];

export const clusterConfig = z
  .strictObject({
    /**
     * front: HTTP edge, admission, cache, routes work to workers. worker: pulls work and runs tools.
     * both: one machine (or both over NATS when `natsUrl` is set).
     */
    role: z.enum(ROLES).default('both'),
    /** NATS server URL(s), comma separated; required for front and worker. */
    natsUrl: z.string().nullable().default(null),
    /** This node's name in membership and status (default: hostname-pid). */
    nodeId: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'nodeId: letters, digits, _ and - only (it is a NATS subject token)')
      .nullable()
      .default(null),
    /** Prefix of every stream, bucket and subject, so several deployments can share one NATS. */
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('lean'),
    /**
     * Jobs a worker runs at once (it pulls only when one of these is free). null (the default):
     * the worker's Lean session capacity, `lean.maxSessions` — more slots than sessions would
     * take jobs that then wait inside this worker where no other worker can take them.
     */
    workerSlots: z.number().int().positive().nullable().default(null),
    /** Affinity buckets per environment (work subjects a header hashes into); the same on every node. */
    affinityBuckets: z.number().int().min(1).max(256).default(16),
    /** A front that cannot publish (or claim) within this fails the request with 503 rather than hang. */
    publishTimeoutMs: z.number().int().positive().default(2000),
    /** A claim lives at most its job's deadline plus this; then any waiter may take the key over. */
    claimMarginSeconds: z.number().positive().default(30),
    /** A job not acknowledged for this long (worker dead) is redelivered; workers extend it while they run. */
    ackWaitSeconds: z.number().positive().default(10),
    /** Deliveries of one job before JetStream gives up on it (the front then answers it with an error). */
    maxDeliver: z.number().int().positive().default(5),
    heartbeatMs: z.number().int().positive().default(1000),
    /** A worker missing this many heartbeats is considered gone. */
    missedHeartbeats: z.number().int().positive().default(3),
    /** An idle worker takes work queued for a key another worker holds warm after it waited this long. */
    stealAfterMs: z.number().int().nonnegative().default(500),
    /** Time-to-live of the shared result cache (JetStream KV bucket). */
    cacheTtlSeconds: z.number().positive().default(86_400),
    /** Replicas of the stream and buckets (1 for one NATS server, 3 for a NATS cluster). */
    replicas: z.number().int().min(1).max(5).default(1),
  })
  .prefault({});

export type ClusterConfig = z.output<typeof clusterConfig>;

/** Environment variables over the file: LEAN_TOOL_ROLE, NATS_URL, LEAN_TOOL_NODE_ID, LEAN_TOOL_WORKER_SLOTS, LEAN_TOOL_NATS_REPLICAS. */
export function applyClusterEnv(c: ClusterConfig, env: NodeJS.ProcessEnv): void {
  if (env.LEAN_TOOL_ROLE) {
    if (!(ROLES as readonly string[]).includes(env.LEAN_TOOL_ROLE))
      throw new Error(`LEAN_TOOL_ROLE must be one of ${ROLES.join(', ')}, got ${env.LEAN_TOOL_ROLE}`);
    c.role = env.LEAN_TOOL_ROLE as Role;
  }
  if (env.NATS_URL) c.natsUrl = env.NATS_URL;
  if (env.LEAN_TOOL_NODE_ID) {
    if (!/^[A-Za-z0-9_-]+$/.test(env.LEAN_TOOL_NODE_ID))
      throw new Error('LEAN_TOOL_NODE_ID: letters, digits, _ and - only');
    c.nodeId = env.LEAN_TOOL_NODE_ID;
  }
  if (env.LEAN_TOOL_WORKER_SLOTS) {
    const n = Number(env.LEAN_TOOL_WORKER_SLOTS);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`LEAN_TOOL_WORKER_SLOTS must be a positive integer, got ${env.LEAN_TOOL_WORKER_SLOTS}`);
    c.workerSlots = n;
  }
  if (env.LEAN_TOOL_NATS_REPLICAS) {
    const n = Number(env.LEAN_TOOL_NATS_REPLICAS);
    if (!Number.isInteger(n) || n < 1 || n > 5)
      throw new Error(`LEAN_TOOL_NATS_REPLICAS must be an integer 1-5, got ${env.LEAN_TOOL_NATS_REPLICAS}`);
    c.replicas = n;
  }
  if (c.role !== 'both' && !c.natsUrl)
    throw new Error(`the ${c.role} role needs a NATS server: set NATS_URL or cluster.natsUrl`);
}

/**
 * The worker's slots: as configured, else its Lean session capacity (`lean.maxSessions`).
 * Configured above that capacity is a contradiction, refused at startup.
 */
export function effectiveSlots(c: ClusterConfig, lean: { maxSessions: number; maxProcesses: number }): number {
  // One environment's jobs can use at most maxSessions processes, and all together maxProcesses.
  const capacity = Math.min(lean.maxSessions, lean.maxProcesses);
  if (c.workerSlots === null) return capacity;
  if (c.workerSlots > capacity)
    throw new Error(
      `cluster.workerSlots (${c.workerSlots}) exceeds the worker's Lean session capacity ` +
        `(${capacity} = min(lean.maxSessions ${lean.maxSessions}, lean.maxProcesses ${lean.maxProcesses})): ` +
        'the extra jobs would wait inside this worker for a session while other workers idle; ' +
        'lower the slots (or leave them unset) or raise lean.maxSessions (LEAN_TOOL_MAX_SESSIONS)',
    );
  return c.workerSlots;
}

/** Whether this node talks to NATS at all. */
export const usesNats = (c: ClusterConfig) => c.natsUrl !== null && c.natsUrl !== '';
