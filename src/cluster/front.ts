/**
 * The front's executor: an admitted request that missed the local cache is looked up in
 * the shared cache, claimed cluster-wide (so identical requests are computed once), and
 * published as a job on its work subject; the front then awaits the outcome published
 * under the request's cache key. Cancellation and the deadline travel as a cancel message
 * and the job's `deadlineAt`.
 */
import { randomUUID } from 'node:crypto';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { ToolName, ToolResponse } from '../contract/tools.ts';
import { relayedError, serviceError } from '../errors.ts';
import type { Log } from '../log.ts';
import type { Subscription } from '@nats-io/transport-node';
import type { ExecutionContext, Executor, Prepared } from '../server/pipeline.ts';
import type { ToolContext } from '../tools/types.ts';
import type { ClusterConnection } from './connection.ts';
import { Listener } from './listen.ts';
import type { Membership } from './membership.ts';
import { decode, encode, type Job, type Outcome, type ProgressEvent } from './messages.ts';
import { keyId, requestHeader, workKey } from './names.ts';

/** What the front reports to metrics (src/metrics), if anyone listens. */
export interface FrontObserver {
  sharedCache(result: 'hit' | 'miss'): void;
  submitted(route: 'warm' | 'fallback'): void;
  joined(): void;
  roundTrip(tool: string, seconds: number): void;
}

export class ClusterFront implements Executor {
  readonly checksLocalAvailability = false;
  #submitted = { warm: 0, fallback: 0, joined: 0 };
  /** Our queued jobs by stream sequence, for JetStream's max-deliveries advisory. */
  #queued = new Map<number, { job: string; key: string }>();
  #advisories: Subscription;

  constructor(
    private readonly c: ClusterConnection,
    private readonly members: Membership,
    private readonly opts: { nodeId: string; log: Log; observer?: FrontObserver },
  ) {
    // A job delivered maxDeliver times without an acknowledgement (every worker that took it
    // died or stalled) will not be delivered again: answer it now rather than at the deadline,
    // and remove it from the stream.
    this.#advisories = c.nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${c.names.stream}.*`, {
      callback: (_err, msg) => {
        let seq: number;
        try {
          seq = decode<{ stream_seq: number }>(msg.data).stream_seq;
        } catch {
          return;
        }
        const q = this.#queued.get(seq);
        if (!q) return;
        this.#queued.delete(seq);
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
        void c.jsm.streams.deleteMessage(c.names.stream, seq, false).catch(() => {});
      },
    });
  }

  async lookup(p: Prepared<ToolName>): Promise<object | undefined> {
    const v = await this.#shared(p.key);
    this.opts.observer?.sharedCache(v ? 'hit' : 'miss');
    return v;
  }

  async #shared(key: string): Promise<object | undefined> {
    try {
      const e = await this.c.cache.get(key);
      return e && e.operation === 'PUT' && e.value.length ? decode<object>(e.value) : undefined;
    } catch (err) {
      // The shared cache is an optimisation: NATS trouble here must not fail the request.
      this.opts.log.warn({ err }, 'shared cache lookup failed');
      return undefined;
    }
  }

  async run<T extends ToolName>(p: Prepared<T>, ctx: ExecutionContext): Promise<ToolResponse<T>> {
    const needsLean = p.impl.needsLean(p.request);
    if (needsLean && this.members.environmentAvailable(p.env.name) === false) {
      throw serviceError('environment_unavailable', 'cluster_no_worker', { env: p.env.name });
    }
    const t0 = performance.now();
    // Until an outcome answers us: another front's job we joined may end cancelled or out of
    // time on its deadline, not ours; then we claim the key ourselves and go again.
    for (;;) {
      const outcome = await this.#attempt(p, ctx, needsLean);
      if (outcome) {
        this.opts.observer?.roundTrip(p.tool, (performance.now() - t0) / 1000);
        if (outcome.status === 'ok') {
          // The worker's verdict (Lean failed during the run): the front's local cache must not keep it either.
          if (!outcome.cacheable) ctx.leanFailed();
          return outcome.result as ToolResponse<T>;
        }
        throw relayedError(outcome.error);
      }
    }
  }

  /** One claim-or-join round; undefined when a joined job ended without an answer for us. */
  async #attempt(
    p: Prepared<ToolName>,
    ctx: { signal: AbortSignal; deadlineSeconds: number; progress?: ToolContext['progress'] },
    needsLean: boolean,
  ): Promise<Outcome | undefined> {
    const { names, nc, js, inflight } = this.c;
    // Listen before looking: an outcome published after this point is seen, one before it is in the cache.
    const outcomes = new Listener<Outcome>(nc, names.outcome(p.key));
    let progressSub: Listener<ProgressEvent> | undefined;
    try {
      const jobId = randomUUID().replaceAll('-', '');
      // Both at once (one round trip): a result that appeared meanwhile wins over our claim.
      const [cached, claim] = await Promise.all([
        this.#shared(p.key),
        inflight.create(p.key, encode({ job: jobId, front: this.opts.nodeId })).catch((err: unknown) => {
          // Held by someone else: join them. Anything else (NATS unreachable, …) must not leave us waiting.
          if (
            err instanceof JetStreamApiError &&
            (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
              err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
          )
            return undefined;
          throw serviceError('overloaded', 'cluster_claim', { reason: (err as Error).message }, { retryAfter: 2 });
        }),
      ]);
      if (cached) {
        if (claim !== undefined) void inflight.delete(p.key, { previousSeq: claim }).catch(() => {});
        return { job: 'cache', status: 'ok', result: cached, cacheable: true, worker: 'cache' };
      }
      if (claim === undefined) {
        // Someone else is computing this request: wait for their outcome.
        this.#submitted.joined++;
        this.opts.observer?.joined();
        const o = await outcomes.next(() => true, ctx.signal);
        if (o.status === 'error' && (o.error.code === 'cancelled' || o.error.code === 'timeout')) return undefined;
        return o;
      }
      const key = workKey(
        p.env.name,
        requestHeader(p.request as { content?: unknown; ignore_imports?: unknown }, p.env.imports),
      );
      // Work for a header some live worker holds warm goes to that header's subject; the rest to the fallback.
      const warm = needsLean && this.members.holders(keyId(key)).length > 0;
      const subject = warm ? names.workSubject(key) : names.fallbackSubject;
      if (ctx.progress) {
        const progress = ctx.progress;
        progressSub = new Listener<ProgressEvent>(nc, names.progress(jobId));
        void (async () => {
          for (;;) progress(await progressSub!.next(() => true, ctx.signal));
        })().catch(() => {});
      }
      const job: Job = {
        id: jobId,
        tool: p.tool,
        environment: p.env.name,
        request: p.request as Record<string, unknown>,
        key: p.key,
        deadlineAt: Date.now() + ctx.deadlineSeconds * 1000,
        deadlineSeconds: ctx.deadlineSeconds,
        progress: ctx.progress !== undefined,
        front: this.opts.nodeId,
      };
      let seq: number;
      try {
        seq = (await js.publish(subject, encode(job), { msgID: jobId })).seq;
      } catch (err) {
        await inflight.delete(p.key, { previousSeq: claim }).catch(() => {});
        throw serviceError('overloaded', 'cluster_queue', { reason: (err as Error).message }, { retryAfter: 2 });
      }
      this.#queued.set(seq, { job: jobId, key: p.key });
      this.#submitted[warm ? 'warm' : 'fallback']++;
      this.opts.observer?.submitted(warm ? 'warm' : 'fallback');
      // The subject rides along: an idle worker pulling it can fetch at once without looking at every queue.
      nc.publish(names.kick, subject);
      try {
        // Ours: its own error, or anyone's success for this key (the same result).
        return await outcomes.next((o) => o.job === jobId || o.status === 'ok', ctx.signal);
      } catch (e) {
        // Deadline or client gone: stop the job wherever it is, and free the key for others.
        nc.publish(names.cancel(jobId));
        throw e;
      } finally {
        this.#queued.delete(seq);
        // Not awaited: the answer need not wait for the key to be freed (the worker frees it too).
        void inflight.delete(p.key, { previousSeq: claim }).catch(() => {});
      }
    } finally {
      outcomes.close();
      progressSub?.close();
    }
  }

  stats() {
    return { ...this.#submitted };
  }

  close(): void {
    this.#advisories.unsubscribe();
  }
}
