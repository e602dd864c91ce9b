/**
 * The front's executor: an admitted request that missed the local cache is looked up in
 * the shared cache, claimed cluster-wide (so identical requests are computed once), and
 * published as a job on its work subject; the front then awaits the outcome published
 * under the request's cache key. Cancellation and the deadline travel as a cancel message
 * and the job's `deadlineAt`.
 */
import { randomUUID } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import type { ToolName, ToolResponse } from '../contract/tools.ts';
import { relayedError, serviceError, TIMEOUT_CODES, type ErrorCode } from '../errors.ts';
import type { Log } from '../log.ts';
import type { ExecutionContext, Executor, Prepared } from '../server/pipeline.ts';
import type { ToolContext } from '../tools/types.ts';
import { deadlineSignal } from '../util/timeout-signal.ts';
import { ClaimBook } from './claims.ts';
import { ensureConsumer, type ClusterConnection } from './connection.ts';
import type { ConnectionHealth } from './health.ts';
import { Listener } from './listen.ts';
import type { Membership } from './membership.ts';
import {
  cachedResult,
  decodeAs,
  encode,
  maxDeliveriesAdvisory,
  outcomeSchema,
  progressSchema,
  type Job,
  type Outcome,
  type ProgressEvent,
} from './messages.ts';
import { keyId, requestHeader, workKey } from './names.ts';

/** Another caller's outcome this request does not take as its own: their cancel, or their deadline (service or Lean). */
const NOT_OURS: ReadonlySet<string> = new Set<ErrorCode>(['cancelled', ...TIMEOUT_CODES]);

/** What the front reports to metrics (src/metrics), if anyone listens. */
export interface FrontObserver {
  sharedCache(result: 'hit' | 'miss'): void;
  submitted(route: 'warm' | 'fallback'): void;
  joined(): void;
  roundTrip(tool: string, environment: string, seconds: number): void;
}

type AttemptContext = { signal: AbortSignal; deadlineSeconds: number; progress?: ToolContext['progress'] };

export class ClusterFront implements Executor {
  readonly checksLocalAvailability = false;
  #submitted = { warm: 0, fallback: 0, joined: 0 };
  /** Our queued jobs by stream sequence, for JetStream's max-deliveries advisory. */
  #queued = new Map<number, { job: string; key: string }>();
  /** Cache keys whose outcome a request here waits for, with how many requests. */
  #waiting = new Map<string, number>();
  #advisories: Subscription;
  readonly claims: ClaimBook;

  constructor(
    private readonly c: ClusterConnection,
    private readonly members: Membership,
    private readonly opts: { nodeId: string; log: Log; health: ConnectionHealth; observer?: FrontObserver },
  ) {
    this.claims = new ClaimBook(c, opts.nodeId);
    void this.#announceReturns().catch(() => {});
    // A job delivered maxDeliver times without an acknowledgement (every worker that took it
    // died or stalled) will not be delivered again: answer it now rather than at the deadline,
    // and remove it from the stream.
    this.#advisories = c.nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${c.names.stream}.*`, {
      callback: (_err, msg) => {
        const seq = decodeAs(maxDeliveriesAdvisory, 'advisory', msg.data, c.drop)?.stream_seq;
        const q = seq === undefined ? undefined : this.#queued.get(seq);
        if (!q) return;
        this.#queued.delete(seq!);
        const outcome: Outcome = {
          job: q.job,
          status: 'error',
          worker: 'jetstream',
          error: {
            code: 'internal',
            message: `the job was delivered ${c.config.maxDeliver} times and no worker finished it (each died or stalled); it was not retried further`,
          },
        };
        c.nc.publish(c.names.outcome(q.key), encode(outcome));
        void c.jsm.streams.deleteMessage(c.names.stream, seq!, false).catch(() => {});
      },
    });
  }

  /** Back on NATS after an outage: workers send again the outcomes they sent while we were away (deliver.ts). */
  async #announceReturns(): Promise<void> {
    for await (const s of this.c.nc.status()) {
      if (s.type !== 'reconnect' || this.#waiting.size === 0) continue;
      // Within the server's max_payload (a key is a 64-hex hash): beyond it, the rest wait for their deadline.
      const room = Math.max(1, Math.floor(((this.c.nc.info?.max_payload ?? 1 << 20) - 1024) / 80));
      this.c.nc.publish(this.c.names.frontBack, encode({ keys: [...this.#waiting.keys()].slice(0, room) }));
    }
  }

  #wait(key: string, n: 1 | -1): void {
    const k = (this.#waiting.get(key) ?? 0) + n;
    if (k > 0) this.#waiting.set(key, k);
    else this.#waiting.delete(key);
  }

  async lookup(p: Prepared<ToolName>): Promise<object | undefined> {
    // NATS or JetStream down: no lookup (it could only time out); run() answers at once why.
    const js = this.opts.health.jetstream();
    if (!this.opts.health.connected() || (!js.ok && js.error)) return undefined;
    const v = await this.#shared(p.key);
    this.opts.observer?.sharedCache(v ? 'hit' : 'miss');
    return v;
  }

  async #shared(key: string): Promise<Record<string, unknown> | undefined> {
    try {
      const e = await this.c.cache.get(key);
      return e && e.operation === 'PUT' && e.value.length
        ? decodeAs(cachedResult, 'cached result', e.value, this.c.drop)
        : undefined;
    } catch (err) {
      // The shared cache is an optimisation: NATS trouble here must not fail the request.
      this.opts.log.warn({ err }, 'shared cache lookup failed');
      return undefined;
    }
  }

  /** Refuses at once what the cluster cannot run now: no hanging until the deadline. */
  #admit(p: Prepared<ToolName>, needsLean: boolean): void {
    const js = this.opts.health.jetstream();
    if (!this.opts.health.connected())
      throw serviceError('overloaded', 'cluster_unreachable', { reason: 'disconnected' }, { retryAfter: 2 });
    // Refused only on a JetStream call that failed (and none succeeded since), not on mere quiet.
    if (!js.ok && js.error)
      throw serviceError(
        'overloaded',
        'cluster_unreachable',
        { reason: `JetStream has not answered for ${js.last_ok_ms} ms: ${js.error}` },
        { retryAfter: 2 },
      );
    const missing = this.c.resources.missing();
    if (missing) throw serviceError('overloaded', 'cluster_claim', { reason: missing }, { retryAfter: 2 });
    const can = this.members.capability(p.env.name, needsLean);
    if (can === 'no-workers') throw serviceError('overloaded', 'cluster_no_workers', {}, { retryAfter: 2 });
    if (can === 'not-here')
      throw needsLean
        ? serviceError('environment_unavailable', 'cluster_no_worker', { env: p.env.name })
        : serviceError('environment_unavailable', 'cluster_not_configured', { env: p.env.name });
  }

  async run<T extends ToolName>(p: Prepared<T>, ctx: ExecutionContext): Promise<ToolResponse<T>> {
    const needsLean = p.impl.needsLean(p.request);
    this.#admit(p, needsLean);
    const t0 = performance.now();
    // Until an outcome answers us: another front's job we joined may end cancelled or out of
    // time on its deadline, not ours, or its claimer may have died; then we go again.
    for (;;) {
      const outcome = await this.#attempt(p, ctx, needsLean);
      if (outcome) {
        this.opts.observer?.roundTrip(p.tool, p.env.name, (performance.now() - t0) / 1000);
        if (outcome.status === 'ok') {
          // The worker's verdict (Lean failed during the run): the front's local cache must not keep it either.
          if (!outcome.cacheable) ctx.leanFailed();
          return outcome.result as ToolResponse<T>;
        }
        throw relayedError(outcome.error);
      }
    }
  }

  /** The job for this request and the subject it goes to (warm bucket, the environment's `any`, or `plain`). */
  #job(p: Prepared<ToolName>, ctx: AttemptContext, needsLean: boolean): { job: Job; subject: string; warm: boolean } {
    const { names } = this.c;
    const key = workKey(
      p.env.name,
      requestHeader(p.request as { content?: unknown; ignore_imports?: unknown }, p.env.imports),
    );
    // Work for a header some live worker holds warm goes to that header's bucket; the rest to the environment's queue.
    const warm = needsLean && this.members.holders(keyId(key)).length > 0;
    const subject = warm ? names.bucketSubject(key) : names.workSubject(p.env.name, needsLean ? 'any' : 'plain');
    const job: Job = {
      id: randomUUID().replaceAll('-', ''),
      tool: p.tool,
      environment: p.env.name,
      request: p.request as Record<string, unknown>,
      key: p.key,
      deadlineAt: Date.now() + ctx.deadlineSeconds * 1000,
      deadlineSeconds: ctx.deadlineSeconds,
      progress: ctx.progress !== undefined,
      front: this.opts.nodeId,
    };
    return { job, subject, warm };
  }

  /** One claim-or-join round; undefined when a joined job ended without an answer for us. */
  async #attempt(p: Prepared<ToolName>, ctx: AttemptContext, needsLean: boolean): Promise<Outcome | undefined> {
    const { names, nc } = this.c;
    const { job, subject, warm } = this.#job(p, ctx, needsLean);
    const data = encode(job);
    // The largest message the server takes (its max_payload): a larger job is refused for good, not as overload.
    const limit = nc.info?.max_payload;
    if (limit !== undefined && data.length + 1024 > limit)
      throw serviceError('payload_too_large', 'cluster_payload', { bytes: data.length, limit });
    // Listen before looking: an outcome published after this point is seen, one before it is in the cache.
    const outcomes = new Listener<Outcome>(nc, names.outcome(p.key), outcomeSchema, 'outcome', this.c.drop);
    let progressSub: Listener<ProgressEvent> | undefined;
    this.#wait(p.key, 1);
    try {
      // Both at once (one round trip): a result that appeared meanwhile wins over our claim.
      const [cached, claim] = await Promise.all([
        this.#shared(p.key),
        this.claims.claim(p.key, job).catch((err: unknown) => {
          this.opts.health.jetstreamFailed(err);
          throw serviceError('overloaded', 'cluster_claim', { reason: (err as Error).message }, { retryAfter: 2 });
        }),
      ]);
      if (cached) {
        if (claim !== undefined) void this.claims.release(p.key, claim);
        return { job: 'cache', status: 'ok', result: cached, cacheable: true, worker: 'cache' };
      }
      if (claim === undefined) return await this.#join(p.key, outcomes, ctx.signal);
      if (ctx.progress) {
        const progress = ctx.progress;
        progressSub = new Listener<ProgressEvent>(nc, names.progress(job.id), progressSchema, 'progress', this.c.drop);
        void (async () => {
          for (;;) progress(await progressSub!.next(() => true, ctx.signal));
        })().catch(() => {});
      }
      return await this.#submit(job, data, subject, warm, claim, outcomes, ctx.signal);
    } finally {
      this.#wait(p.key, -1);
      outcomes.close();
      progressSub?.close();
    }
  }

  /** Someone else computes this request: wait for their outcome, checking now and then that their claim is alive. */
  async #join(key: string, outcomes: Listener<Outcome>, signal: AbortSignal): Promise<Outcome | undefined> {
    this.#submitted.joined++;
    this.opts.observer?.joined();
    for (;;) {
      const tick = deadlineSignal(signal, this.claims.checkEveryMs);
      try {
        const o = await outcomes.next(() => true, tick.signal);
        if (o.status === 'error' && NOT_OURS.has(o.error.code)) return undefined;
        return o;
      } catch (e) {
        if (signal.aborted) throw e;
      } finally {
        tick.clear();
      }
      // No outcome yet: a claim gone, expired or never queued by its (dead) front sends us round again.
      if (await this.claims.staleOrGone(key)) return undefined;
    }
  }

  async #submit(
    job: Job,
    data: Uint8Array,
    subject: string,
    warm: boolean,
    claim: number,
    outcomes: Listener<Outcome>,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const { names, nc, js } = this.c;
    let seq: number;
    try {
      await ensureConsumer(this.c, subject);
      seq = (await js.publish(subject, data, { msgID: job.id, timeout: this.c.config.publishTimeoutMs })).seq;
    } catch (err) {
      this.opts.health.jetstreamFailed(err);
      await this.claims.release(job.key, claim);
      throw serviceError('overloaded', 'cluster_queue', { reason: (err as Error).message }, { retryAfter: 2 });
    }
    this.#queued.set(seq, { job: job.id, key: job.key });
    this.#submitted[warm ? 'warm' : 'fallback']++;
    this.opts.observer?.submitted(warm ? 'warm' : 'fallback');
    // The subject rides along: an idle worker pulling it can fetch at once without looking at every queue.
    nc.publish(names.kick, subject);
    // Queued: waiters elsewhere now know the claimer got this far (a job in the stream is answered
    // even if we die). Not awaited before the wait: the job is already on its way.
    const held = this.claims.queued(job.key, job, claim);
    try {
      // Ours: its own error, or anyone's success for this key (the same result).
      return await outcomes.next((o) => o.job === job.id || o.status === 'ok', signal);
    } catch (e) {
      // Deadline or client gone: stop the job wherever it is, and free the key for others.
      nc.publish(names.cancel(job.id));
      throw e;
    } finally {
      this.#queued.delete(seq);
      // Not awaited: the answer need not wait for the key to be freed (the worker frees it too).
      void held.then((rev) => this.claims.release(job.key, rev));
    }
  }

  stats() {
    return { ...this.#submitted, claims_held: this.claims.held() };
  }

  close(): void {
    this.#advisories.unsubscribe();
  }
}
