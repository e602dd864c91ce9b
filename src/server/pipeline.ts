/**
 * One request's path through the daemon, independent of the transport (HTTP or
 * WebSocket): validate → environment → implementation → availability → admission
 * (queue) → deadline → tool. Cheap refusals come before any waiting.
 */
import type { Log } from '../log.ts';
import { effectiveTimeoutSeconds, withDeadline } from '../admission/deadline.ts';
import type { Caller } from '../admission/keys.ts';
import type { ConcurrencyLimiter } from '../admission/limiter.ts';
import type { LeanRunner } from '../backend/index.ts';
import type { ResultCache } from '../cache/result-cache.ts';
import type { ToolName, ToolResponse } from '../contract/tools.ts';
import { parseToolRequest } from '../contract/validate.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';
import { ServiceError } from '../errors.ts';
import type { ToolContext, ToolImpl, ToolTable } from '../tools/types.ts';

export interface PipelineDeps {
  registry: EnvironmentRegistry;
  limiter: ConcurrencyLimiter;
  tools: ToolTable;
  lean: LeanRunner;
  cache: ResultCache;
  maxTimeoutSeconds: number;
}

export interface RunInfo {
  environment?: string;
  queueMs?: number;
  deadlineSeconds?: number;
  cache?: 'hit' | 'miss';
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
}

export class Pipeline {
  constructor(private readonly deps: PipelineDeps) {}

  async run<T extends ToolName>(tool: T, body: unknown, opts: RunOptions): Promise<ToolResponse<T>> {
    const request = parseToolRequest(tool, body);
    const env = this.deps.registry.get(request.environment);
    opts.info.environment = request.environment;
    if (!env) {
      throw new ServiceError('unknown_environment', `unknown environment "${request.environment}"; GET /v1/environments lists them (${this.deps.registry.names().join(', ') || 'none configured'})`);
    }
    const impl = this.deps.tools[tool] as ToolImpl<T> | undefined;
    if (!impl) throw new ServiceError('not_implemented', `the tool ${tool} is not implemented by this daemon yet`);
    const key = this.deps.cache.key(tool, env.name, request as Record<string, unknown>);
    const hit = this.deps.cache.get(key) as ToolResponse<T> | undefined;
    if (hit) {
      // Answered without a queue slot or a pool; timings are this request's.
      opts.info.cache = 'hit';
      return { ...hit, timings: { total_ms: 0 } };
    }
    opts.info.cache = 'miss';
    if (impl.needsLean(request)) {
      const a = this.deps.registry.availability(env.name);
      if (!a.available) throw new ServiceError('environment_unavailable', `environment ${env.name} cannot run Lean: ${a.reason}`);
    }

    const queuedAt = performance.now();
    const release = await this.deps.limiter.acquire(opts.caller, opts.signal);
    opts.info.queueMs = Math.round(performance.now() - queuedAt);
    try {
      const seconds = effectiveTimeoutSeconds(request.timeout_seconds, opts.caller.keyClass, this.deps.maxTimeoutSeconds);
      opts.info.deadlineSeconds = seconds;
      opts.onStarted?.();
      const result = await withDeadline(seconds, opts.signal, (signal) =>
        impl.run(request, { env, signal, log: opts.log, lean: this.deps.lean, progress: opts.progress ?? (() => {}) }));
      if (impl.cacheable?.(result) ?? true) this.deps.cache.set(key, result);
      return result;
    } finally {
      release();
    }
  }
}
