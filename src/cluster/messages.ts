/**
 * What travels between fronts and workers, as JSON. A job carries everything a worker
 * needs to run it without asking back: the validated request, its deadline (absolute,
 * wall clock) and the cache key that names its outcome.
 *
 * Every message read from NATS is checked against its zod schema here, at the boundary:
 * another version of the daemon, a stray publisher or a corrupted store must not reach the
 * pipeline as a half-typed object. What fails is dropped, logged and counted (`decodeAs`).
 */
import { z } from 'zod';
import { ERROR_CODES } from '../errors.ts';

const errorCode = z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]);

export const jobSchema = z.object({
  /** Unique per submission: idempotency key of its outcome, target of cancel and progress. */
  id: z.string().min(1),
  tool: z.string(),
  environment: z.string(),
  /** The validated request (defaults applied); the worker validates it again against the tool's schema. */
  request: z.record(z.string(), z.unknown()),
  /** The result cache key (sha256): outcomes are published under it. */
  key: z.string().min(1),
  /** Epoch milliseconds after which the result is of no use (the front's deadline). */
  deadlineAt: z.number(),
  deadlineSeconds: z.number(),
  /** Whether the front wants progress events. */
  progress: z.boolean(),
  /** The front that submitted it (status, logs). */
  front: z.string(),
});
export type Job = z.infer<typeof jobSchema>;

const errorBody = z.object({
  code: errorCode,
  message: z.string(),
  details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export const outcomeSchema = z.discriminatedUnion('status', [
  z.object({
    job: z.string(),
    status: z.literal('ok'),
    result: z.object({}).loose(),
    cacheable: z.boolean(),
    worker: z.string(),
  }),
  z.object({ job: z.string(), status: z.literal('error'), error: errorBody, worker: z.string() }),
]);
export type Outcome = z.infer<typeof outcomeSchema>;

export const progressSchema = z.object({
  stage: z.string(),
  done: z.number().optional(),
  total: z.number().optional(),
});
export type ProgressEvent = z.infer<typeof progressSchema>;

export const heartbeatSchema = z.object({
  node: z.string().min(1),
  /** Epoch ms when sent. */
  at: z.number(),
  slots: z.number().int().nonnegative(),
  busy: z.number().int().nonnegative(),
  /** Work keys held warm (`<env token>.<hash>`), most recent first. */
  warm: z.array(z.string()),
  /** Jobs running now, by consumer name (lets idle workers tell an orphaned delivery from a busy one). */
  running: z.record(z.string(), z.number()),
  /** Environments configured on this worker, each with whether it can run Lean for it. */
  environments: z.record(z.string(), z.boolean()),
  /** Jobs finished since start. */
  done: z.number(),
  /**
   * A slot free and nothing found to pull at the last look: the worker waits for a kick or its next poll, so a
   * job queued now would wait for it (absent: a worker from before this field; then a free slot counts as idle).
   */
  idle: z.boolean().optional(),
  /** How long the oldest job running now has run, ms (absent: none running, or a worker from before this field). */
  oldestJobMs: z.number().nonnegative().optional(),
});
export type Heartbeat = z.infer<typeof heartbeatSchema>;

/**
 * An in-flight claim (KV value): who computes a cache key, until when it may hold it, and
 * whether the job is queued yet. A claim past `expiresAt`, or still unqueued after the
 * publish timeout, belongs to a dead front: a waiter removes it and claims the key itself.
 */
export const claimSchema = z.object({
  job: z.string(),
  front: z.string(),
  /** Epoch ms when claimed. */
  at: z.number(),
  /** Epoch ms: the job's deadline plus a margin; no claim outlives it. */
  expiresAt: z.number(),
  queued: z.boolean(),
});
export type Claim = z.infer<typeof claimSchema>;

/** A front back on NATS after an outage: the cache keys whose outcome it still waits for (deliver.ts). */
export const frontBackSchema = z.object({ keys: z.array(z.string()) });

export const maxDeliveriesAdvisory = z.object({ stream_seq: z.number() }).loose();

const enc = new TextEncoder();
const dec = new TextDecoder();
export const encode = (v: unknown): Uint8Array => enc.encode(JSON.stringify(v));

/** Called for every message dropped at the boundary (the node logs and counts it). */
export type DropReporter = (kind: string, reason: string) => void;

/** The message if it parses as JSON and matches `schema`; otherwise reported and undefined. */
export function decodeAs<T>(schema: z.ZodType<T>, kind: string, data: Uint8Array, drop: DropReporter): T | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(dec.decode(data));
  } catch (e) {
    drop(kind, `not JSON: ${(e as Error).message}`);
    return undefined;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  drop(kind, parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  return undefined;
}

/** A cached tool response from the shared cache (written by our workers: an object). */
export const cachedResult = z.object({}).loose();
