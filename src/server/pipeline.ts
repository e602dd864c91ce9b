/**
 * One request's path through the daemon, independent of the transport (HTTP or
 * WebSocket): validate → environment → implementation → cache → availability →
 * admission (queue) → deadline → tool. Cheap refusals and cache hits come before any
 * waiting; a hit never takes a queue slot or a Lean session.
 */
import { effectiveTimeoutSeconds, withDeadline, type OwnController } from '../admission/request-timeout.ts';
import { callerShare, type Caller } from '../admission/keys.ts';
import type { ConcurrencyLimiter } from '../admission/limiter.ts';
import type { LeanRunner } from '../backend/index.ts';
import type { CachedResult, RawKey, ResultCache } from '../cache/result-cache.ts';
import {
  isToolName,
  TOOL_NAMES,
  TOOLS,
  type ToolName,
  type ToolRequest,
  type ToolResponse,
} from '../contract/tools.ts';
import { toolExample } from '../contract/examples.ts';
import { parseToolRequest } from '../contract/validate.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';
import { ProvenanceTable, type Provenance } from '../envs/provenance.ts';
import { environmentCannotStart } from '../backend/errors.ts';
import { clip, serviceError, type ServiceError } from '../errors.ts';
import type { Log } from '../log.ts';
import type { ToolContext, ToolImpl, ToolTable } from '../tools/types.ts';
import { checkInputLimits, DEFAULT_INPUT_LIMITS, type InputLimits } from '../admission/input-limits.ts';
import type { StructuralPool } from '../workers/structural-pool.ts';
import { noop } from '../util/arrays.ts';
import { checkResponseSize, responseChars, responseLimit } from '../tools/response-bound.ts';
import { MalformedBody, SerializedResult, type RawPrepared } from '../workers/raw-request.ts';
import { malformedBody } from './body.ts';
import type { DeferredBody } from './deferred-body.ts';

export interface PipelineDeps {
  registry: EnvironmentRegistry;
  limiter: ConcurrencyLimiter;
  tools: ToolTable;
  lean: LeanRunner;
  cache: ResultCache;
  maxTimeoutSeconds: number;
  /** Per-field input limits (default DEFAULT_INPUT_LIMITS). */
  limits?: InputLimits;
  /** Runs the built-in tools off the event loop (absent: on the main thread). */
  structural?: StructuralPool;
  /** A Lean-backed request up to this size (characters) runs on the main thread (`workers.inlineMaxChars`; absent: all of them). */
  inlineMaxChars?: number;
  /** Where admitted work runs: absent = in this process (the single-machine default); the front role injects a cluster one. */
  executor?: Executor;
  /** The bound of a Lean session's cold start (`lean.startupTimeoutSeconds`), for timeoutFromSession (absent: 600 s). */
  coldStartSeconds?: number;
  /** The `info` provenance of each environment's results (absent: the process's own, src/envs/provenance.ts). */
  provenance?: ProvenanceTable;
}

/** What an executor gets with a request besides the request itself. */
export interface ExecutionContext {
  signal: AbortSignal;
  log: Log;
  deadlineSeconds: number;
  progress?: ToolContext['progress'];
  /** Called when the run reported a Lean failure (the result is then not cached). */
  leanFailed: () => void;
}

/**
 * Runs an admitted request somewhere else (scale-out, src/cluster). The pipeline keeps
 * validation, the local cache, admission and the deadline; the executor replaces only the
 * `impl.run` call, and may answer from a shared cache before admission.
 */
export interface Executor {
  /** A result another node computed (shared cache), looked up after the local cache missed. */
  lookup?(p: Prepared<ToolName>, signal: AbortSignal): Promise<object | undefined>;
  /** Whether this node's own environment availability applies (false: the executor's workers decide). */
  readonly checksLocalAvailability: boolean;
  run<T extends ToolName>(p: Prepared<T>, ctx: ExecutionContext): Promise<ToolResponse<T>>;
}

export interface RunInfo {
  environment?: string;
  /** The environment's provenance, which the result's `info` carries (stored with it in the cache). */
  provenance?: Provenance;
  queueMs?: number;
  deadlineSeconds?: number;
  cache?: 'hit' | 'miss';
  /** The result's JSON as this run stored it in the cache (ResultCache.set), for the HTTP response (response-text.ts). */
  stored?: string | undefined;
  /**
   * The run reported a Lean failure (the REPL crashed, ran out of memory or time…): typed, so an
   * adapter that must answer such a run differently (Kimina's `error`) never reads message texts.
   */
  leanFailed?: boolean;
}

export interface RunOptions {
  caller: Caller;
  log: Log;
  /** Aborts when the client goes away: leaves the queue or stops the work. */
  signal: AbortSignal;
  /** Filled as the request advances, for the request log line and headers. */
  info: RunInfo;
  onStarted?: () => void;
  progress?: ToolContext['progress'];
  /** The request's size as received (characters), for its response bound; default: measured from the request. */
  inputChars?: number | undefined;
  /** The client's address: anonymous callers are told apart by it for fair scheduling. */
  clientAddress?: string | undefined;
  /**
   * The controller behind `signal` when it is this request's alone (nothing else listens to abort
   * it but the transport's client-gone check): the deadline aborts it directly, instead of a
   * second controller joined to it by a listener (admission/request-timeout.ts).
   */
  controller?: OwnController | undefined;
  /**
   * The timeout counts from the Lean session being ready, not from admission (Kimina's routes:
   * a REPL's cold start is not the snippet's time; admission/request-timeout.ts FromSession).
   */
  timeoutFromSession?: boolean;
}

/** Whether a tool result may be cached (shared with the cluster worker, which decides for the shared cache). */
export function isCacheable<T extends ToolName>(
  impl: ToolImpl<T>,
  result: ToolResponse<T>,
  leanFailed: boolean,
): boolean {
  return !leanFailed && (impl.cacheable?.(result) ?? true);
}

/** How an admitted request will run (Pipeline.planRun). */
interface PlannedRun<T extends ToolName> {
  start: (signal: AbortSignal) => Promise<ToolResponse<T>>;
  maxResponseChars: number;
  /** The worker measured the result against maxResponseChars already. */
  measured: boolean;
  /** Whether the run reported a Lean failure (the result is then not cached). */
  lean: LeanFailedFlag;
}

/** A run's Lean failure, reported by the tool through `mark` (typed: the edge never reads message texts). */
interface LeanFailedFlag {
  failed: boolean;
  mark: () => void;
}

/**
 * The flag and its reporter. The reporter is an arrow assigned to a member, which takes no name:
 * the build keeps function names (esbuild `keepNames`), so a named closure made per request costs
 * a defineProperty, and binding a named function copies its name as a new string
 * ("bound …", in V8's slow path since the name is then a data property): visible in the daemon's perf
 * profile of a miss.
 */
function leanFailedFlag(): LeanFailedFlag {
  // The member's place is held by the shared no-op until the reporter is made.
  const flag: LeanFailedFlag = { failed: false, mark: noop };
  flag.mark = () => {
    flag.failed = true;
  };
  return flag;
}

function plan<T extends ToolName>(
  maxResponseChars: number,
  lean: LeanFailedFlag,
  measured: boolean,
  start: (signal: AbortSignal) => Promise<ToolResponse<T>>,
): PlannedRun<T> {
  return { maxResponseChars, lean, measured, start };
}

/** A validated request that missed the cache. */
export interface Prepared<T extends ToolName> {
  tool: T;
  /** The request; without its large collections when `raw` is set (prepareDeferred). */
  request: ToolRequest<T>;
  env: EnvironmentConfig;
  impl: ToolImpl<T>;
  key: string;
  /** A large body's text, validated on a worker: the tool runs on a worker from it (deferred-body.ts). */
  raw?: string | undefined;
}

/**
 * The permanent "no Lean here" answer: the reason names the fix; `"reparse": false` is offered only
 * where the tool really answers without Lean with it (have2lemma takes `reparse` but always needs
 * Lean's goals: advising it there led to the same 409).
 */
export function unavailable<T extends ToolName>(
  p: Pick<Prepared<T>, 'tool' | 'request' | 'impl'>,
  env: string,
  reason: string,
): ServiceError {
  const withoutLean = worksWithoutReparse(p)
    ? ` Without Lean, ${p.tool} still answers with "reparse": false (lean-tool: --no-reparse), giving the transformed content, not elaborated.`
    : '';
  return serviceError('environment_unavailable', 'cannot_run_lean', { env, reason, withoutLean });
}

/** Whether this request, with `"reparse": false`, would need no Lean (tools without `reparse` never qualify). */
export function worksWithoutReparse<T extends ToolName>(p: Pick<Prepared<T>, 'tool' | 'request' | 'impl'>): boolean {
  return 'reparse' in TOOLS[p.tool].request.shape && !p.impl.needsLean({ ...p.request, reparse: false });
}

/** The tools that answer without Lean when sent `"reparse": false` (their example request, so the derivation is the runtime's). */
export function toolsWithoutLean(tools: ToolTable): string[] {
  return TOOL_NAMES.filter((tool) => {
    const impl = tools[tool];
    const example = toolExample(tool);
    if (!impl || !example) return false;
    const request = TOOLS[tool].request.parse(example) as ToolRequest<typeof tool>;
    return worksWithoutReparse({ tool, request, impl: impl as ToolImpl<typeof tool> });
  });
}

export class Pipeline {
  readonly #provenance: ProvenanceTable;

  constructor(private readonly deps: PipelineDeps) {
    this.#provenance = deps.provenance ?? new ProvenanceTable();
  }

  /**
   * A byte-identical body seen before: its cached result, without validating again. The
   * body's key comes back either way, to be passed to prepare/execute (hashed once).
   */
  lookupRaw(tool: string, rawBody: string): { hit: CachedResult | undefined; rawKey: RawKey } {
    const rawKey = this.deps.cache.rawKey(tool, rawBody);
    return { hit: this.deps.cache.getRaw(rawKey), rawKey };
  }

  /**
   * The input limits, counted on a body of any shape before validation (zod would build an issue
   * per item of an oversized list): throws the 400 naming the first field over its limit.
   * Transports that parse a body of their own first (MCP) apply it before their own validation too.
   */
  checkLimits(body: unknown): void {
    checkInputLimits(body, this.deps.limits ?? DEFAULT_INPUT_LIMITS);
  }

  /** Validate and look up; a hit is returned ready to send, a miss as a Prepared to execute. */
  prepare<T extends ToolName>(
    tool: T,
    body: unknown,
    info: RunInfo,
    rawKey?: RawKey,
  ): { hit: CachedResult } | { miss: Prepared<T> } {
    this.checkLimits(body);
    return this.lookup(tool, parseToolRequest(tool, body), info, rawKey);
  }

  /** The input limits (`limits.*`). */
  get limits(): InputLimits {
    return this.deps.limits ?? DEFAULT_INPUT_LIMITS;
  }

  /**
   * Whether a large body to `tool` is parsed on a worker thread (prepareDeferred): the pool is up
   * and runs this tool's built-in implementation, and no executor needs the request on this node.
   */
  parsesOffThread(tool: string): boolean {
    const pool = this.deps.structural;
    if (this.deps.executor || !pool?.up || !isToolName(tool)) return false;
    return pool.serves(tool, this.deps.tools[tool]);
  }

  /**
   * prepare for a body left unparsed (deferred-body.ts): parsed, validated and keyed on a worker
   * thread, under the caller's fair turn; the same refusals and the same cache key as prepare.
   */
  async prepareDeferred<T extends ToolName>(
    tool: T,
    body: DeferredBody,
    info: RunInfo,
    rawKey: RawKey | undefined,
    from: { caller: Caller; clientAddress?: string | undefined; signal: AbortSignal },
  ): Promise<{ hit: CachedResult } | { miss: Prepared<T> }> {
    const caller = callerShare(from.caller, from.clientAddress);
    let out: RawPrepared;
    try {
      out = await this.deps.structural!.prepareRaw(tool, body.raw, this.limits, from.signal, caller);
    } catch (e) {
      throw e instanceof MalformedBody && body.contentType !== null ? malformedBody(e.reason, body.contentType) : e;
    }
    return this.lookup(tool, out.request as ToolRequest<T>, info, rawKey, { key: out.key, raw: body.raw });
  }

  /** The validated request's environment, implementation and cache entry. */
  private lookup<T extends ToolName>(
    tool: T,
    request: ToolRequest<T>,
    info: RunInfo,
    rawKey: RawKey | undefined,
    deferred?: { key: string; raw: string },
  ): { hit: CachedResult } | { miss: Prepared<T> } {
    const env = this.deps.registry.get(request.environment);
    info.environment = request.environment;
    if (!env) {
      throw serviceError(
        'unknown_environment',
        'environment',
        { name: clip(request.environment), known: this.deps.registry.names().join(', ') || 'none configured' },
        {
          details: [{ field: 'environment', message: 'names no configured environment' }],
        },
      );
    }
    const impl = this.deps.tools[tool] as ToolImpl<T> | undefined;
    if (!impl) throw serviceError('not_implemented', 'tool', { tool });
    info.provenance = this.#provenance.of(env);
    const key = deferred?.key ?? this.keyOf(tool, env.name, request as Record<string, unknown>);
    const hit = this.deps.cache.get(key);
    if (hit) {
      info.cache = 'hit';
      if (rawKey !== undefined) this.deps.cache.alias(rawKey, key);
      return { hit };
    }
    info.cache = 'miss';
    return { miss: { tool, request, env, impl, key, raw: deferred?.raw } };
  }

  /** A single node keys its cache by the request itself when short; a cluster shares its keys: digests. */
  private keyOf(tool: ToolName, env: string, fields: Record<string, unknown>): string {
    return this.deps.executor ? this.deps.cache.key(tool, env, fields) : this.deps.cache.localKey(tool, env, fields);
  }

  /**
   * The permanent refusal execute would answer for this request (its environment cannot run the
   * Lean it needs), or undefined: the stream asks first, so it never announces `queued` for it.
   */
  refusal<T extends ToolName>(p: Prepared<T>): ServiceError | undefined {
    if (!(this.deps.executor?.checksLocalAvailability ?? true) || !p.impl.needsLean(p.request)) return undefined;
    const a = this.deps.registry.availability(p.env.name);
    return a.available ? undefined : unavailable(p, p.env.name, a.reason);
  }

  async execute<T extends ToolName>(p: Prepared<T>, opts: RunOptions, rawKey?: RawKey): Promise<ToolResponse<T>> {
    const shared = this.deps.executor?.lookup ? await this.sharedResult(p, opts) : undefined;
    if (shared) return shared;
    const refused = this.refusal(p);
    if (refused) throw refused;
    const queuedAt = performance.now();
    // Awaited even when a slot is free: the turn lets a client's close read with its request
    // (emitted on the next tick) abort the signal before the job starts (hostile-clients test).
    const release = await this.deps.limiter.acquire(opts.caller, opts.signal);
    opts.info.queueMs = Math.round(performance.now() - queuedAt);
    try {
      // Cancelled while queued, or in the same read as the request itself: the job never starts.
      opts.signal.throwIfAborted();
      const seconds = effectiveTimeoutSeconds(
        p.request.timeout_seconds,
        opts.caller.keyClass,
        this.deps.maxTimeoutSeconds,
      );
      opts.info.deadlineSeconds = seconds;
      const run = this.planRun(p, opts, seconds);
      opts.onStarted?.();
      const result = await withDeadline(
        seconds,
        opts.signal,
        (signal) =>
          run.start(signal).catch((e: unknown) => {
            // Lean could not start for this environment (for example its header does not import): the listing says so too.
            if (environmentCannotStart(e)) this.deps.registry.reportUnavailable(p.env.name, e.message);
            throw e;
          }),
        opts.controller,
        // A runner that reports its session ready, here: a cluster's worker starts the session on another
        // node, which reports no readiness here; those keep the plain deadline.
        opts.timeoutFromSession && this.deps.lean.reportsSessionReady === true && !this.deps.executor
          ? { coldStartSeconds: this.deps.coldStartSeconds ?? 600 }
          : undefined,
      );
      // A worker measured its own result before sending it back.
      if (!run.measured) checkResponseSize(result, run.maxResponseChars);
      if (run.lean.failed) opts.info.leanFailed = true;
      if (isCacheable(p.impl, result, run.lean.failed))
        opts.info.stored = this.store(p.key, result, rawKey, this.#provenance.of(p.env).members);
      return result;
    } finally {
      release();
    }
  }

  /** The result cached (a worker's answer to a large body comes as its text: stored as it is). */
  private store(key: string, result: object, rawKey: RawKey | undefined, members: string): string | undefined {
    const cache = this.deps.cache;
    return result instanceof SerializedResult
      ? cache.setSerialized(key, result.json, rawKey, members)
      : cache.set(key, result, rawKey, members);
  }

  /** A result another node computed (the executor's shared cache), stored in the local cache too. */
  private async sharedResult<T extends ToolName>(
    p: Prepared<T>,
    opts: RunOptions,
  ): Promise<ToolResponse<T> | undefined> {
    const shared = await this.deps.executor!.lookup!(p, opts.signal);
    if (!shared) return undefined;
    opts.info.cache = 'hit';
    this.deps.cache.set(p.key, shared, undefined, this.#provenance.of(p.env).members);
    return shared as ToolResponse<T>;
  }

  /**
   * Where the admitted request runs: on the executor (scale-out), on a worker thread (every
   * built-in tool once the pool is up: structural tools always, Lean-backed ones above
   * `workers.inlineMaxChars`, their Lean calls coming back here), or on this thread.
   */
  private planRun<T extends ToolName>(p: Prepared<T>, opts: RunOptions, seconds: number): PlannedRun<T> {
    // The response bound: tools refuse early when they can; every result is measured.
    const inputChars = opts.inputChars ?? p.raw?.length ?? responseChars(p.request);
    const maxResponseChars = responseLimit(inputChars, this.limits);
    // Typed: a tool's elaboration reports a Lean failure here; the edge never reads message texts.
    const lean = leanFailedFlag();
    const executor = this.deps.executor;
    if (executor) {
      const ctx = { log: opts.log, deadlineSeconds: seconds, leanFailed: lean.mark };
      const progress = opts.progress ? { progress: opts.progress } : {};
      return plan(maxResponseChars, lean, false, (signal) => executor.run(p, { ...ctx, ...progress, signal }));
    }
    const offThread = this.workerFor(p, inputChars);
    if (offThread) {
      const caller = callerShare(opts.caller, opts.clientAddress);
      const leanRun = p.impl.needsLean(p.request)
        ? { runner: this.deps.lean, progress: opts.progress, failed: lean.mark }
        : undefined;
      // A large body goes as its text, parsed again there: never built on this thread.
      const raw = p.raw === undefined ? undefined : { text: p.raw, limits: this.limits, prepareOnly: false };
      return plan(
        maxResponseChars,
        lean,
        true,
        (signal) =>
          offThread.run(p.tool, raw ? undefined : p.request, p.env, signal, {
            caller,
            maxResponseChars,
            lean: leanRun,
            raw,
          }) as Promise<ToolResponse<T>>,
      );
    }
    const { log } = opts;
    const runner = this.deps.lean;
    const progress = opts.progress ?? noop;
    // The context as one literal (a spread plus members takes V8's slow define path per request).
    return plan(maxResponseChars, lean, false, (signal) =>
      p.impl.run(p.request, {
        env: p.env,
        maxResponseChars,
        log,
        lean: runner,
        leanFailed: lean.mark,
        progress,
        signal,
      }),
    );
  }

  /**
   * The worker pool, when it runs this request: it is up (the daemon starts it at startup;
   * before that, or if it cannot start, work stays on this thread) and runs this tool's
   * built-in implementation; a Lean-backed request goes there only above the inline size,
   * since below it the hop costs more than the parse it moves (docs/hostile-input.md).
   */
  private workerFor<T extends ToolName>(p: Prepared<T>, inputChars: number): StructuralPool | undefined {
    const pool = this.deps.structural;
    if (!pool?.serves(p.tool, p.impl)) return undefined;
    // A deferred body was validated on a worker (parsesOffThread): it runs on one, whatever its size.
    const goes =
      !p.impl.needsLean(p.request) || p.raw !== undefined || inputChars > (this.deps.inlineMaxChars ?? Infinity);
    // Asked only then: `up` starts the threads, which a small Lean-backed request never uses.
    return goes && pool.up ? pool : undefined;
  }

  /** prepare + execute, for transports that want the response object either way. */
  async run<T extends ToolName>(tool: T, body: unknown, opts: RunOptions): Promise<ToolResponse<T>> {
    const r = this.prepare(tool, body, opts.info);
    // Transports that want an object (WebSocket) pay a parse on a hit; HTTP sends the stored bytes.
    if ('hit' in r) return JSON.parse(r.hit.body.toString('utf8')) as ToolResponse<T>;
    return this.execute(r.miss, opts);
  }
}
