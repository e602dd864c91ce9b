/**
 * A worker-thread pool (Piscina) for the tools that need no Lean: parsing and rewriting
 * run off the event loop, so a large or hostile input costs one worker, never every
 * caller. The request's deadline (or the client going away) aborts the task; a task that
 * is already running is stopped by terminating its thread, and Piscina starts a fresh one.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { PROJECT_ROOT } from '../project-root.ts';
import { workerEntry } from '../util/worker-entry.ts';
import { Piscina } from 'piscina';
import type { LeanFailure, LeanRunner } from '../backend/index.ts';
import type { ToolName } from '../contract/tools.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { relayedError, serviceError } from '../errors.ts';
import { builtinTools } from '../tools/index.ts';
import type { ToolContext } from '../tools/types.ts';
import { failureOf, serveLean, type LeanService } from './lean-port.ts';
import type { RawBody, StructuralOutcome, StructuralTask } from './structural-task.ts';
import { MalformedBody, SerializedResult, type RawPrepared } from './raw-request.ts';
import type { InputLimits } from '../admission/input-limits.ts';
import { FairScheduler } from './fair-scheduler.ts';

const BUILTIN = builtinTools();

const workerFile = () => workerEntry(PROJECT_ROOT, 'structural-worker.js', 'src/workers/structural-worker.mjs');

export interface StructuralPoolOptions {
  /** Worker threads (default: the cores, at most 4). */
  threads?: number | undefined;
  /** Heap limit per worker (MiB): a task that needs more fails alone instead of bloating the daemon. */
  maxHeapMb?: number | undefined;
  /** Idle workers above one are stopped after this long. */
  idleTimeoutMs?: number | undefined;
  /** Extra threads that serve only callers with nothing running (fair-scheduler.ts; default 1). */
  reserveThreads?: number | undefined;
}

export interface StructuralRunOptions {
  /** Who asked (API key label, or the anonymous caller's address): the unit of fair scheduling. */
  caller?: string | undefined;
  /** The response bound (characters): the worker refuses a larger result instead of sending it back. */
  maxResponseChars?: number | undefined;
  /** A Lean-backed tool: its Lean calls come back to this runner (lean-port.ts). */
  lean?: LeanLine | undefined;
  /** The request as its body's text (a large body, raw-request.ts): the worker parses and validates it. */
  raw?: RawBody | undefined;
}

/** What a Lean-backed task reaches on the main thread. */
export interface LeanLine {
  runner: LeanRunner;
  progress?: ToolContext['progress'] | undefined;
  /** The tool reported a Lean failure (its result is then not cached). */
  failed: (failure: LeanFailure) => void;
}

export interface StructuralPoolStats {
  threads: number;
  running: number;
  queued: number;
  completed: number;
  /** Tasks stopped by terminating their worker (deadline or client gone). */
  terminated: number;
  /** Large request bodies parsed and validated on a worker (prepareRaw), not on the main thread. */
  bodiesParsed: number;
}

export class StructuralPool {
  private pool: Piscina<StructuralTask, StructuralOutcome> | undefined;
  private terminated = 0;
  private bodiesParsed = 0;
  private running = 0;
  private readonly threads: number;
  private started: Promise<boolean> | undefined;
  /** Which caller's task runs next (per-caller queues). */
  private readonly fair: FairScheduler;

  constructor(private readonly opts: StructuralPoolOptions = {}) {
    this.threads = opts.threads || Math.max(1, Math.min(4, availableParallelism()));
    this.fair = new FairScheduler(this.threads, opts.reserveThreads ?? 1);
  }

  /** Started on first use (or by warm()): a daemon that never serves a structural tool starts no threads. */
  private get piscina(): Piscina<StructuralTask, StructuralOutcome> {
    this.pool ??= new Piscina({
      filename: workerFile(),
      // All threads start at once (each loads the sources, which takes a moment): a replacement
      // for a terminated worker is then rarely waited for.
      minThreads: this.threads + this.fair.reserve,
      maxThreads: this.threads + this.fair.reserve,
      idleTimeout: this.opts.idleTimeoutMs ?? 60_000,
      // Admission already bounds how many requests run; the pool's own queue needs no limit.
      maxQueue: Infinity,
      resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb ?? 1024 },
    });
    return this.pool;
  }

  private isReady = false;
  private closed = false;

  /** Start the threads now (the daemon does at startup); resolves once they serve. */
  warm(): Promise<boolean> {
    return this.ready();
  }

  /** Has a worker loaded the sources and answered? Until then structural work stays on the main thread. */
  get up(): boolean {
    if (!this.isReady) void this.ready();
    return this.isReady;
  }

  /**
   * Resolves once a worker has loaded the sources and answered (true), or failed to (false).
   * Thread start-up takes seconds (each thread loads the sources); a request does not wait
   * for it (its deadline may be shorter): until then, the pipeline runs structural work on
   * the main thread, as linear as on a worker but not isolated from other callers.
   */
  ready(): Promise<boolean> {
    // Destroyed (the daemon draining): no threads start. A warm-up timer firing during the drain started them, and the
    // daemon's exit while they started aborted the process (SIGABRT instead of exit 0).
    if (this.closed) return Promise.resolve(false);
    this.started ??= this.piscina.run({ tool: '' as ToolName, request: null, env: null as never }).then(
      () => (this.isReady = true),
      () => false,
    );
    return this.started;
  }

  /** Is `impl` the built-in implementation of `tool` (the one the workers run)? */
  serves(tool: ToolName, impl: unknown): boolean {
    return (BUILTIN as Record<string, unknown>)[tool] === impl;
  }

  /**
   * Run a tool on a worker; rejects with the signal's reason when it aborts. With `opts.lean`
   * the tool may use Lean, which stays on this thread (lean-port.ts).
   */
  async run(
    tool: ToolName,
    request: unknown,
    env: EnvironmentConfig,
    signal: AbortSignal,
    opts: StructuralRunOptions = {},
  ): Promise<unknown> {
    // Fair turn first: the task reaches Piscina only when a thread is free for it.
    const release = await this.fair.acquire(opts.caller ?? '', signal);
    this.running++;
    const channel = opts.lean ? new MessageChannel() : undefined;
    const service = channel && serveLean(channel.port1, opts.lean!.runner, env, signal, opts.lean!.progress);
    let out: StructuralOutcome;
    try {
      const task: StructuralTask = {
        tool,
        request,
        env,
        maxResponseChars: opts.maxResponseChars,
        lean: channel?.port2,
        progress: opts.lean?.progress !== undefined,
        raw: opts.raw,
      };
      out = await this.piscina.run(task, { signal, ...(channel ? { transferList: [channel.port2] } : {}) });
    } catch (e) {
      if (signal.aborted) {
        this.terminated++;
        throw signal.reason instanceof Error ? signal.reason : serviceError('cancelled', 'by_client');
      }
      // The worker died (for example it hit its heap limit): this input cannot be served.
      throw serviceError('internal', 'worker_failed', { reason: (e as Error).message }, { cause: e });
    } finally {
      service?.close();
      this.running--;
      release();
    }
    return outcomeOf(out, opts, service);
  }

  /**
   * A large body parsed, validated and keyed on a worker (raw-request.ts), under the caller's fair
   * turn: what the main thread needs to route it comes back, never its large fields. Rejects with
   * MalformedBody when it is not JSON the daemon takes, or with the validation's error.
   */
  async prepareRaw(
    tool: ToolName,
    text: string,
    limits: InputLimits,
    signal: AbortSignal,
    caller?: string,
  ): Promise<RawPrepared> {
    this.bodiesParsed++;
    const raw = { text, limits, prepareOnly: true };
    return (await this.run(tool, undefined, null as never, signal, { caller, raw })) as RawPrepared;
  }

  stats(): StructuralPoolStats {
    const p = this.pool;
    return {
      threads: p?.threads.length ?? 0,
      running: this.running,
      queued: (p?.queueSize ?? 0) + this.fair.queued,
      completed: p?.completed ?? 0,
      terminated: this.terminated,
      bodiesParsed: this.bodiesParsed,
    };
  }

  async destroy(): Promise<void> {
    this.closed = true;
    const p = this.pool;
    this.pool = undefined;
    await p?.destroy();
  }
}

/** The task's answer, or its error (the main thread's own object when the backend raised it). */
function outcomeOf(out: StructuralOutcome, opts: StructuralRunOptions, service: LeanService | undefined): unknown {
  for (const f of out.leanFailures ?? []) opts.lean?.failed(failureOf(f));
  if (out.ok) return opts.raw && !opts.raw.prepareOnly ? new SerializedResult(out.response as string) : out.response;
  if (out.mainError !== undefined && service) throw service.errorOf(out.mainError);
  if (out.malformed !== undefined) throw new MalformedBody(out.malformed);
  if (out.code)
    throw relayedError({ code: out.code, message: out.message, ...(out.details ? { details: out.details } : {}) });
  throw serviceError('internal', 'unexpected', {}, { cause: new Error(out.message) });
}
