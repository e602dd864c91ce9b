/**
 * In-flight claims (the KV bucket `<prefix>_inflight`): the front that claims a cache key
 * computes it; identical requests anywhere join it. A claim carries its own expiry (the
 * job's deadline plus `claimMarginSeconds`) and says when its job is queued, so a front
 * that died after claiming and before queueing blocks nobody for long: a waiter finds the
 * claim expired, or still unqueued after the publish timeout, removes it and goes again
 * (such a claim used to hold the key for the bucket's one-hour TTL).
 */
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { ClusterConnection } from './connection.ts';
import { claimSchema, decodeAs, encode, type Claim, type Job } from './messages.ts';

/** Whether a KV create failed because the key exists (someone else's claim). */
const heldElsewhere = (err: unknown) =>
  err instanceof JetStreamApiError &&
  (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
    err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

export class ClaimBook {
  /** Claims this front holds now (cache key → KV revision). */
  #held = new Map<string, number>();
  /** How often a waiter looks at the claim it waits on. */
  readonly checkEveryMs: number;

  constructor(
    private readonly c: ClusterConnection,
    private readonly nodeId: string,
  ) {
    this.checkEveryMs = Math.max(500, c.config.publishTimeoutMs);
  }

  #value(job: Job, queued: boolean): Claim {
    return {
      job: job.id,
      front: this.nodeId,
      at: Date.now(),
      expiresAt: job.deadlineAt + this.c.config.claimMarginSeconds * 1000,
      queued,
    };
  }

  /** Our claim's revision, or undefined when someone else holds the key. Other failures throw. */
  async claim(key: string, job: Job): Promise<number | undefined> {
    try {
      const rev = await this.c.inflight.create(key, encode(this.#value(job, false)));
      this.#held.set(key, rev);
      return rev;
    } catch (err) {
      if (heldElsewhere(err)) return undefined;
      throw err;
    }
  }

  /** Marks our claim queued; the revision to release it by (the old one if the update failed). */
  async queued(key: string, job: Job, rev: number): Promise<number> {
    try {
      const next = await this.c.inflight.update(key, encode(this.#value(job, true)), rev);
      this.#held.set(key, next);
      return next;
    } catch {
      return rev;
    }
  }

  async release(key: string, rev: number): Promise<void> {
    this.#held.delete(key);
    await this.c.inflight.delete(key, { previousSeq: rev }).catch(() => {});
  }

  /** Whether the claim on `key` is gone, or dead (expired, or unqueued past the publish timeout): then it is removed. */
  async staleOrGone(key: string): Promise<boolean> {
    const e = await this.c.inflight.get(key).catch(() => null);
    if (!e || e.operation !== 'PUT') return true;
    const claim = decodeAs(claimSchema, 'claim', e.value, this.c.drop);
    const now = Date.now();
    const dead =
      !claim || now > claim.expiresAt || (!claim.queued && now - claim.at > this.c.config.publishTimeoutMs + 1000);
    if (!dead) return false;
    await this.c.inflight.delete(key, { previousSeq: e.revision }).catch(() => {});
    return true;
  }

  /** The job id a claim names (the worker frees a claim for its job after answering). */
  async jobOf(key: string): Promise<{ job: string; revision: number } | undefined> {
    const e = await this.c.inflight.get(key).catch(() => null);
    if (!e || e.operation !== 'PUT') return undefined;
    const claim = decodeAs(claimSchema, 'claim', e.value, this.c.drop);
    return claim ? { job: claim.job, revision: e.revision } : undefined;
  }

  held(): number {
    return this.#held.size;
  }
}
