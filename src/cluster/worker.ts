/**
 * The worker: pulls one job whenever one of its slots is free (that is the backpressure),
 * preferring the buckets of the headers it holds warm, then its environments' queues, then
 * work queued for a header whose holders are busy or gone; only ever jobs of environments it
 * can run (pull-plan.ts). While every slot is busy it fetches at most one job ahead per slot,
 * and only when jobs are known to be queued (a kick, or the last job's pending count) and no
 * other live worker says it is idle (heartbeats): such a job would wait in the queue anyway,
 * and held here it starts the moment a slot frees instead of a pull round trip later.
 * A job runs under its travelling deadline; its outcome is published under the
 * request's cache key before the job is acknowledged, so a worker dying in between makes
 * JetStream redeliver a job whose answer the front already has (and ignores).
 */
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import type { LeanRunner } from '../backend/index.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';
import { serviceError, type ServiceError } from '../errors.ts';
import type { Log } from '../log.ts';
import type { ToolTable } from '../tools/types.ts';
import { ClaimBook } from './claims.ts';
import { ensureConsumer, type ClusterConnection } from './connection.ts';
import { OutcomeCourier } from './deliver.ts';
import { executeJob } from './execute.ts';
import type { ConnectionHealth } from './health.ts';
import type { Membership } from './membership.ts';
import { cachedResult, decodeAs, encode, jobSchema, type Heartbeat, type Job, type Outcome } from './messages.ts';
import { keyId, token, workKey, type WorkKey } from './names.ts';
import { PullPlanner } from './pull-plan.ts';

export interface WorkerDeps {
  registry: EnvironmentRegistry;
  tools: ToolTable;
  lean: LeanRunner;
  log: Log;
  /** Jobs run at once (src/cluster/config.ts effectiveSlots). */
  slots: number;
  health: ConnectionHealth;
  observer?: {
    redelivered(): void;
    ran(tool: string, environment: string, status: string, seconds: number): void;
    /** From the front queueing the job to this worker starting it. */
    waited(environment: string, seconds: number): void;
  };
  /** The session pools per environment and canonical header (LeanBackend.stats): the headers held warm right now. */
  pools?: () => Record<string, { headers?: Record<string, { warm: number; busy: number; starting: number }> }>;
}

/** A job fetched ahead, waiting for a slot; its delivery is kept alive meanwhile. */
interface Held {
  msg: JsMsg;
  consumer: string;
  working: NodeJS.Timeout;
}

interface Running {
  ctrl: AbortController;
  consumer: string;
  /** performance.now() when it started here. */
  startedAt: number;
}

/** Polls for work this often when idle (kicks wake it at once for new jobs; polls catch redeliveries and steals). */
const IDLE_POLL_MS = 500;

export class ClusterWorker {
  #free: number;
  #running = new Map<string, Running>();
  /** Keys held warm, most recent first (`<env token>.<hash>` → key). */
  #warm = new Map<string, WorkKey>();
  #consumers = new Map<string, Consumer>();
  /** The resources' generation the consumer handles belong to. */
  #generation = 0;
  /** Since when a consumer has had work waiting that we did not take (for stealing). */
  #waitingSince = new Map<string, number>();
  #cancelled = new Set<string>();
  /** The subject of the latest job queued (from the front's kick). */
  #hint: string | undefined;
  /** Work subjects whose consumer is being created. */
  #ensuring = new Set<string>();
  /** A consumer that had jobs waiting when we last took one from it. */
  #behind: string | undefined;
  /** Jobs fetched ahead while every slot was busy, oldest first (at most one per slot). */
  #held: Held[] = [];
  /** The fetch ahead under way, if any (one at a time). */
  #ahead: Promise<void> | undefined;
  /** Whether the last pull found nothing and a heartbeat said so. */
  #idleSaid = false;
  #done = 0;
  #closed = false;
  /** Aborted by kill(): outcomes still waiting for NATS are abandoned. */
  #stop = new AbortController();
  #wake: (() => void) | undefined;
  #subs: Subscription[] = [];
  #timer: NodeJS.Timeout | undefined;
  #loop: Promise<void> | undefined;
  readonly #warmLimit: number;
  readonly #pulls: PullPlanner;
  readonly #claims: ClaimBook;
  readonly #courier: OutcomeCourier;

  constructor(
    private readonly c: ClusterConnection,
    private readonly members: Membership,
    private readonly nodeId: string,
    private readonly deps: WorkerDeps,
  ) {
    this.#free = deps.slots;
    this.#warmLimit = Math.max(1, deps.slots);
    this.#pulls = new PullPlanner(c, members);
    this.#claims = new ClaimBook(c, nodeId);
    this.#courier = new OutcomeCourier({
      nc: c.nc,
      connected: () => deps.health.connected(),
      frontBack: c.names.frontBack,
      drop: c.drop,
    });
  }

  start(): void {
    const { nc, names } = this.c;
    this.#subs.push(
      nc.subscribe(names.kick, {
        callback: (_e, msg) => {
          this.#hint = msg.string();
          this.#wake?.();
          this.#fetchAhead();
        },
      }),
    );
    this.#subs.push(
      nc.subscribe(names.cancelAll, {
        callback: (_e, msg) => {
          const id = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
          const r = this.#running.get(id);
          if (r) r.ctrl.abort(serviceError('cancelled', 'cluster_front'));
          else {
            // Not (yet) here: remember it, so the job is dropped if it reaches us later.
            if (this.#cancelled.size >= 10_000) this.#cancelled.clear();
            this.#cancelled.add(id);
          }
        },
      }),
    );
    this.#heartbeat();
    this.#timer = setInterval(() => this.#heartbeat(), this.c.config.heartbeatMs);
    this.#loop = this.#pullLoop().catch((err: unknown) =>
      this.deps.log.error({ err }, 'cluster worker stopped pulling'),
    );
  }

  /** Environments configured here, each with whether Lean can run for it now. */
  #environments(): Record<string, boolean> {
    return Object.fromEntries(this.deps.registry.names().map((n) => [n, this.deps.registry.availability(n).available]));
  }

  #heartbeat(): void {
    if (this.#closed) return;
    const running: Record<string, number> = {};
    let oldest = Infinity;
    for (const r of this.#running.values()) {
      running[r.consumer] = (running[r.consumer] ?? 0) + 1;
      oldest = Math.min(oldest, r.startedAt);
    }
    // Held deliveries are unacknowledged too: counted, so no idle worker takes them for orphans.
    for (const h of this.#held) running[h.consumer] = (running[h.consumer] ?? 0) + 1;
    const hb: Heartbeat = {
      node: this.nodeId,
      at: Date.now(),
      slots: this.deps.slots,
      // Slots computing now (a job being answered holds none); `running` still counts it until acknowledged.
      busy: this.deps.slots - this.#free,
      warm: [...this.#warmKeys().keys()],
      running,
      done: this.#done,
      idle: this.#idleSaid && this.#free > 0,
      environments: this.#environments(),
      ...(oldest < Infinity ? { oldestJobMs: Math.round(performance.now() - oldest) } : {}),
    };
    this.c.nc.publish(this.c.names.heartbeat(this.nodeId), encode(hb));
  }

  /** Creates a work subject's consumer in the background (at most once at a time). */
  #ensureSoon(subject: string): void {
    if (this.c.ensured.has(subject) || this.#ensuring.has(subject)) return;
    this.#ensuring.add(subject);
    void ensureConsumer(this.c, subject)
      .catch((err: unknown) => this.deps.log.warn({ err, subject }, 'cannot create the consumer of a work subject'))
      .finally(() => this.#ensuring.delete(subject));
  }

  /**
   * Headers held warm: those whose session pool has live sessions here, the ones with an idle
   * session first (a job for them starts at once: the backpressure the pool can tell), then
   * the headers this worker ran recently (all of them when Lean is not behind a pool).
   * A header is advertised only once its bucket's consumer exists (fronts route there on sight).
   */
  #warmKeys(): Map<string, WorkKey> {
    const idle: [string, WorkKey][] = [];
    const busy: [string, WorkKey][] = [];
    for (const [env, p] of Object.entries(this.deps.pools?.() ?? {})) {
      for (const [header, h] of Object.entries(p.headers ?? {})) {
        if (h.warm + h.busy + h.starting === 0) continue;
        const k = workKey(env, header);
        (h.warm > 0 ? idle : busy).push([keyId(k), k]);
      }
    }
    const out = new Map<string, WorkKey>();
    for (const [id, k] of [...idle, ...busy, ...this.#warm]) {
      const subject = this.c.names.bucketSubject(k);
      if (this.c.ensured.has(subject)) out.set(id, k);
      else this.#ensureSoon(subject);
    }
    return out;
  }

  /** The consumers this worker serves first: its warm headers' buckets, then its environments' queues. */
  #ours(): { warm: Set<string>; env: Set<string>; servable: Map<string, boolean> } {
    const { names } = this.c;
    const warm = new Set([...this.#warmKeys().values()].map((k) => names.consumerOf(names.bucketSubject(k))));
    const env = new Set<string>();
    /** Environment token → whether Lean runs for it here (plain jobs need only the environment). */
    const servable = new Map<string, boolean>();
    for (const [name, lean] of Object.entries(this.#environments())) {
      servable.set(token(name), lean);
      const subjects = [names.workSubject(name, 'plain'), ...(lean ? [names.workSubject(name, 'any')] : [])];
      for (const s of subjects) {
        this.#ensureSoon(s);
        env.add(names.consumerOf(s));
      }
    }
    return { warm, env, servable };
  }

  async #idle(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.#wake = undefined;
  }

  async #pullLoop(): Promise<void> {
    while (!this.#closed) {
      // A free slot, and not more jobs being answered than slots (a NATS outage holds answers back: deliver.ts).
      if (this.#free === 0 || this.#running.size >= 2 * this.deps.slots) {
        await this.#idle(1000);
        continue;
      }
      let msg: JsMsg | undefined;
      try {
        msg = await this.#pullOne();
      } catch (err) {
        if (this.#closed) return;
        // A consumer may have gone with a lost stream (resources.ts recreates it): fetch the handles anew.
        this.#consumers.clear();
        this.deps.health.jetstreamFailed(err);
        this.deps.log.warn({ err }, 'cluster pull failed; retrying');
        await this.#idle(500);
        continue;
      }
      if (!msg) {
        // Gone idle: say so now, so busy workers stop fetching ahead what this one could run.
        if (!this.#idleSaid) {
          this.#idleSaid = true;
          this.#heartbeat();
        }
        await this.#idle(IDLE_POLL_MS);
        continue;
      }
      this.#arrived(msg, this.c.names.consumerOf(msg.subject));
    }
  }

  /** A job pulled (or fetched ahead): started on a free slot, else held for the next slot to free. */
  #arrived(msg: JsMsg, consumer: string): void {
    const wasIdle = this.#idleSaid;
    this.#idleSaid = false;
    if (this.#closed) {
      // Pulled while we began to stop: hand it straight back for another worker (a kill answers nothing).
      if (!this.#stop.signal.aborted) msg.nak();
      return;
    }
    if (this.#free > 0) this.#start(msg);
    else this.#held.push({ msg, consumer, working: setInterval(() => msg.working(), this.#workingMs) });
    // No longer idle: say so now, so busy workers fetch ahead again.
    if (wasIdle) this.#heartbeat();
  }

  /** Runs a job on a free slot; the slot, once freed, takes the oldest held job at once. */
  #start(msg: JsMsg): void {
    this.#free--;
    let held = true;
    const free = () => {
      if (!held) return;
      held = false;
      this.#free++;
      const next = this.#closed ? undefined : this.#held.shift();
      if (next) {
        clearInterval(next.working);
        this.#start(next.msg);
      } else this.#wake?.();
    };
    void this.#run(msg, free)
      // #run answers every job itself; anything escaping it is a defect, logged, never the worker's end.
      .catch((err: unknown) => this.deps.log.error({ err }, 'cluster job ended with an unexpected error'))
      .finally(free);
    this.#fetchAhead();
  }

  /** How often a delivery held or running is extended: a third of ack_wait, so only a dead worker lets it go. */
  get #workingMs(): number {
    return Math.max(200, (this.c.config.ackWaitSeconds * 1000) / 3);
  }

  /** Whether to fetch a job ahead now: every slot busy, room to hold one more, no other live worker idle. */
  #mayFetchAhead(): boolean {
    const { slots } = this.deps;
    if (this.#closed || this.#ahead || this.#free > 0 || this.#held.length >= slots) return false;
    if (this.#running.size >= 2 * slots || !this.deps.health.connected()) return false;
    // An idle worker (as its latest heartbeat says) would take the job at the kick: leave it in the queue.
    // One with a free slot that is pulling has its request waiting at the server before ours: it is served first.
    return this.members.live().every((m) => m.node === this.nodeId || !(m.idle ?? m.busy < m.slots));
  }

  /**
   * Fetches one job ahead from a consumer known to have jobs queued (the last job's pending
   * count, or a kick) that this worker serves first; nothing when none is known (no request
   * waits on the server for jobs that may never come). Failures are left to the pull loop.
   */
  #fetchAhead(): void {
    if (!this.#mayFetchAhead()) return;
    const ours = this.#ours();
    const first = new Set([...ours.warm, ...ours.env]);
    const hinted = this.#hint === undefined ? undefined : this.c.names.consumerOf(this.#hint);
    const name = [this.#behind, hinted].find((n) => n !== undefined && first.has(n));
    if (name === undefined) return;
    if (name === this.#behind) this.#behind = undefined;
    else this.#hint = undefined;
    this.#ahead = this.#next(name)
      .then((msg) => {
        this.#ahead = undefined;
        if (msg) this.#arrived(this.#took(name, msg, first), name);
      })
      .catch(() => {
        this.#ahead = undefined;
      });
  }

  /** The consumer to pull from now, in order of preference, and one message from it. */
  async #pullOne(): Promise<JsMsg | undefined> {
    const ours = this.#ours();
    const first = new Set([...ours.warm, ...ours.env]);
    // Busy steady state: the last job we took said more were waiting behind it on its consumer.
    const behind = this.#behind;
    this.#behind = undefined;
    if (behind !== undefined && first.has(behind)) {
      const msg = await this.#next(behind);
      if (msg) return this.#took(behind, msg, first);
    }
    // Fast path: a job was just queued on a subject this worker serves first: fetch it directly.
    const hint = this.#hint;
    this.#hint = undefined;
    if (hint !== undefined && first.has(this.c.names.consumerOf(hint))) {
      const name = this.c.names.consumerOf(hint);
      const msg = await this.#next(name);
      if (msg) return this.#took(name, msg, first);
    }
    const candidates = await this.#pulls.plan(ours, this.#waitingSince);
    this.deps.health.jetstreamOk();
    for (const name of candidates) {
      const msg = await this.#next(name);
      if (msg) {
        this.#waitingSince.delete(name);
        return this.#took(name, msg, first);
      }
    }
    return undefined;
  }

  /** One message from a consumer: it is there (or being redelivered), so a short wait at most. 1 s is the client's minimum. */
  async #next(name: string): Promise<JsMsg | null> {
    return (await this.#consumer(name)).next({ expires: 1000 });
  }

  /** Notes whether more jobs wait behind this one on a consumer we serve first. */
  #took(consumer: string, msg: JsMsg, first: Set<string>): JsMsg {
    if (msg.info.pending > 0 && first.has(consumer)) this.#behind = consumer;
    return msg;
  }

  async #consumer(name: string): Promise<Consumer> {
    if (this.#generation !== this.c.resources.generation) {
      this.#consumers.clear();
      this.#generation = this.c.resources.generation;
    }
    let c = this.#consumers.get(name);
    if (!c) {
      c = await this.c.js.consumers.get(this.c.names.stream, name);
      this.#consumers.set(name, c);
    }
    return c;
  }

  /** The outcome as it travels, and a way to send one copy to the fronts (a core publish: nothing waits for it). */
  #letter(job: Job, outcome: Outcome): { send: () => void; bytes: number } {
    const data = encode(outcome);
    return { send: () => this.#send(job, data), bytes: data.length };
  }

  #send(job: Job, data: Uint8Array): void {
    try {
      this.c.nc.publish(this.c.names.outcome(job.key), data);
    } catch (err) {
      // Most likely larger than the server's max_payload: the front must still get an answer.
      this.c.nc.publish(
        this.c.names.outcome(job.key),
        encode({
          job: job.id,
          status: 'error',
          worker: this.nodeId,
          error: { code: 'internal', message: `the result cannot travel over NATS: ${(err as Error).message}` },
        } satisfies Outcome),
      );
    }
  }

  /**
   * Answers the job and acknowledges it, across a NATS outage (deliver.ts): the outcome is
   * sent until the server has it or the job's deadline passes. A job whose outcome could not
   * be sent is handed back (nak: redelivered, answered from the shared cache or run again).
   */
  async #answer(job: Job, outcome: Outcome, msg: JsMsg, stored?: Promise<void>): Promise<boolean> {
    const { send, bytes } = this.#letter(job, outcome);
    const delivered = await this.#courier.deliver(job.key, send, bytes, job.deadlineAt, this.#stop.signal);
    // The shared cache has the result before the job is acknowledged: a redelivery finds it there.
    await stored;
    if (this.#stop.signal.aborted) return false; // killed: acknowledge nothing
    if (delivered) msg.ack();
    else msg.nak();
    return delivered;
  }

  /**
   * Runs one job; `free` gives its slot back once the tool has finished (called again at the
   * end, harmlessly), so the next job is pulled while this one's outcome, cache entry and claim
   * are sent: those round trips hold no session and no core, and the slot need not wait for them.
   */
  async #run(msg: JsMsg, free: () => void): Promise<void> {
    const job = decodeAs(jobSchema, 'job', msg.data, this.c.drop);
    if (!job) {
      msg.term(); // not a job: never redeliver it
      return;
    }
    const consumer = this.c.names.consumerOf(msg.subject);
    if (msg.info.deliveryCount > 1) this.deps.observer?.redelivered();
    const fail = async (code: ServiceError['code'], message: string) => {
      await this.#answer(job, { job: job.id, status: 'error', worker: this.nodeId, error: { code, message } }, msg);
    };
    if (this.#cancelled.delete(job.id)) return fail('cancelled', 'cancelled before it started');
    const remainingMs = job.deadlineAt - Date.now();
    if (remainingMs <= 0)
      return fail('timeout', `the request exceeded its deadline of ${job.deadlineSeconds} s while queued`);
    if (msg.info.deliveryCount > 1) {
      // A redelivery: the earlier worker may have finished and died before acknowledging.
      const e = await this.c.cache.get(job.key).catch(() => null);
      const result =
        e && e.operation === 'PUT' ? decodeAs(cachedResult, 'cached result', e.value, this.c.drop) : undefined;
      if (result) {
        await this.#answer(job, { job: job.id, status: 'ok', result, cacheable: true, worker: this.nodeId }, msg);
        return;
      }
    }
    const ctrl = new AbortController();
    this.#running.set(job.id, { ctrl, consumer, startedAt: performance.now() });
    // Queued (by the front's clock: deadlineAt less the deadline) until started here, redeliveries included.
    const queuedAt = job.deadlineAt - job.deadlineSeconds * 1000;
    this.deps.observer?.waited(job.environment, Math.max(0, Date.now() - queuedAt) / 1000);
    // Tell JetStream we are alive while the job runs, so ack_wait only catches dead workers.
    const working = setInterval(() => msg.working(), this.#workingMs);
    const t0 = performance.now();
    let answered: boolean;
    try {
      const outcome = await this.#execute(job, ctrl.signal, remainingMs / 1000);
      const status = outcome.status === 'error' ? outcome.error.code : 'ok';
      this.deps.observer?.ran(job.tool, job.environment, status, (performance.now() - t0) / 1000);
      free();
      if (this.#closed && ctrl.signal.aborted) return; // killed: leave the job to be redelivered
      answered = await this.#answer(job, outcome, msg, this.#store(job, outcome));
    } finally {
      clearInterval(working);
      this.#running.delete(job.id);
      // One fewer job in hand: room again to fetch ahead.
      this.#fetchAhead();
    }
    if (!answered) return;
    this.#done++;
    await this.#releaseClaim(job);
  }

  /** Stores a cacheable result in the shared cache, sent alongside the outcome (one round trip, not two). */
  #store(job: Job, outcome: Outcome): Promise<void> | undefined {
    if (outcome.status !== 'ok' || !outcome.cacheable) return undefined;
    return this.c.cache
      .put(job.key, encode(outcome.result))
      .then(() => {})
      .catch((err: unknown) => this.deps.log.warn({ err }, 'shared cache store failed'));
  }

  #execute(job: Job, cancel: AbortSignal, seconds: number): Promise<Outcome> {
    return executeJob(job, cancel, seconds, {
      ...this.deps,
      nodeId: this.nodeId,
      progress: (e) => this.c.nc.publish(this.c.names.progress(job.id), encode(e)),
      warmUp: (k) => this.#warmUp(k),
    });
  }

  /** This header is (about to be) warm here: pull its bucket from now on and tell the fronts. */
  async #warmUp(k: WorkKey): Promise<void> {
    const id = keyId(k);
    const had = this.#warm.delete(id);
    this.#warm.set(id, k);
    // Most recent first, bounded like the sessions that hold the headers.
    const order = [...this.#warm].reverse();
    this.#warm = new Map(order.slice(0, this.#warmLimit));
    const subject = this.c.names.bucketSubject(k);
    if (!had || !this.c.ensured.has(subject)) {
      await ensureConsumer(this.c, subject);
      this.#heartbeat();
    }
  }

  async #releaseClaim(job: Job): Promise<void> {
    // The front normally frees the key; a front that died cannot.
    const claim = await this.#claims.jobOf(job.key);
    if (claim?.job === job.id) await this.#claims.release(job.key, claim.revision);
  }

  stats() {
    return {
      node: this.nodeId,
      slots: this.deps.slots,
      busy: this.deps.slots - this.#free,
      free: this.#free,
      warm: [...this.#warmKeys().keys()],
      done: this.#done,
      outcomes_kept: this.#courier.stats(),
    };
  }

  /** Stop pulling; let running jobs finish (they still answer). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#wake?.();
    for (const s of this.#subs) s.unsubscribe();
    await this.#loop;
    await this.#ahead;
    // Jobs fetched ahead go straight back for another worker.
    for (const h of this.#held.splice(0)) {
      clearInterval(h.working);
      h.msg.nak();
    }
    while (this.#running.size) await new Promise((r) => setTimeout(r, 50));
    this.#courier.close();
  }

  /** Like a crash: stop at once, answer nothing, acknowledge nothing (tests, and shutdown past the drain timeout). */
  kill(): void {
    this.#closed = true;
    this.#stop.abort();
    clearInterval(this.#timer);
    this.#wake?.();
    for (const s of this.#subs) s.unsubscribe();
    this.#courier.close();
    // Like the running ones, held jobs are left to ack_wait (redelivered elsewhere).
    for (const h of this.#held.splice(0)) clearInterval(h.working);
    for (const r of this.#running.values()) r.ctrl.abort(serviceError('cancelled', 'cluster_worker_stopped'));
  }
}
