/**
 * Proof search sessions, daemon-wide: the state registry and its caps, the step cache, the
 * processes searches may hold, and one `SearchSession` per stream connection. The stream
 * channel hands `goal.*` messages here through its extension hook (`connect`).
 */
import type { LeanBackend } from '../backend/index.ts';
import { leaseSession, type SessionLease } from '../backend/lease.ts';
import {
  isSearchTool,
  SEARCH_REQUESTS,
  type GoalStatResult,
  type SearchRequest,
  type SearchTool,
} from '../contract/search.ts';
import { describeDetails, issuesToDetails } from '../contract/validate.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';
import { clip, serviceError } from '../errors.ts';
import type { SearchConfig } from './config.ts';
import { ProcessHost, ProcessSlots } from './host.ts';
import { PlanPool } from './plan-pool.ts';
import { StateRegistry, type StateOwner } from './registry.ts';
import { SearchSession } from './session.ts';
import { StateIds } from './state.ts';
import { StepCache } from './step-cache.ts';

export interface SearchServiceOptions {
  config: SearchConfig;
  /** Heartbeats one second of a root command's deadline buys (the backend's `lean.heartbeatsPerSecond`). */
  heartbeatsPerSecond: number;
  registry: Pick<EnvironmentRegistry, 'get' | 'names' | 'availability'>;
  /**
   * How a message takes a process (tests may substitute; the daemon leases from the backend's
   * pools), the process named `prefer` first when it is idle.
   */
  lease: (env: EnvironmentConfig, header: string, signal: AbortSignal, prefer?: string) => Promise<SessionLease>;
}

/**
 * Who searches on a connection: the caller the per-caller caps count (an API key, or an
 * anonymous caller by address), and its admission (the same per-caller limiter as every
 * request: a message that runs Lean holds one of the caller's slots while it runs).
 */
export interface SearchCaller {
  id: string;
  admit(signal: AbortSignal): Promise<() => void>;
}

/** No admission (tests of the service alone, a caller nobody limits). */
const UNLIMITED = async () => () => {};
let anonymousConnections = 0;

/** The stream's view of one connection's search (see server/stream.ts, `StreamExtension`). */
export interface SearchConnection {
  run(tool: string, request: unknown, signal: AbortSignal): Promise<unknown>;
  close(): void;
}

export class SearchService {
  readonly registry: StateRegistry;
  readonly cache: StepCache;
  readonly ids = new StateIds();
  readonly slots: ProcessSlots;
  readonly config: SearchConfig;
  readonly heartbeatsPerSecond: number;
  /** Where a start's content is planned (off the event loop when a theorem must be found in a large one). */
  readonly plans = new PlanPool();
  #opts: SearchServiceOptions;
  #sessions = new Set<SearchSession>();
  /** Where hosts lease processes: this daemon's pools, or a cluster's workers (`pin`). */
  #lease: SearchServiceOptions['lease'];
  /** With a cluster: whether some worker can run Lean for an environment (the front runs none). */
  #remoteAvailable: ((env: string) => boolean) | undefined;

  constructor(opts: SearchServiceOptions) {
    this.#opts = opts;
    this.#lease = opts.lease;
    this.config = opts.config;
    this.heartbeatsPerSecond = opts.heartbeatsPerSecond;
    this.registry = new StateRegistry(opts.config);
    this.cache = new StepCache(opts.config.cacheEntries);
    this.slots = new ProcessSlots(opts.config.maxProcesses);
  }

  /** The daemon's: processes leased from the backend's warm pools. */
  static forBackend(backend: LeanBackend, opts: Omit<SearchServiceOptions, 'lease'>): SearchService {
    return new SearchService({
      ...opts,
      lease: (env, header, signal, prefer) => leaseSession(backend, env, header, signal, prefer),
    });
  }

  handles(tool: string): boolean {
    return isSearchTool(tool);
  }

  connect(caller: SearchCaller = { id: `connection-${anonymousConnections++}`, admit: UNLIMITED }): SearchConnection {
    const session = new SearchSession(this, caller);
    this.#sessions.add(session);
    return {
      run: (tool, request, signal) => this.#run(session, tool, request, signal),
      close: () => {
        this.#sessions.delete(session);
        session.close();
      },
    };
  }

  async #run(session: SearchSession, tool: string, raw: unknown, signal: AbortSignal): Promise<unknown> {
    if (!isSearchTool(tool)) throw serviceError('unknown_tool', 'tool', { tool: clip(tool), tools: 'goal.*' });
    switch (tool) {
      case 'goal.start':
        return session.start(parse(tool, raw), signal);
      case 'goal.tactic':
        return session.tactic(parse(tool, raw), signal);
      case 'goal.delete':
        return session.delete(parse(tool, raw));
      case 'goal.stat':
        parse(tool, raw);
        return session.stat();
    }
  }

  /**
   * A cluster front: searches lease their process on a worker (src/cluster/search-lease.ts),
   * pinned there; an environment is available when some live worker can run Lean for it.
   */
  pin(remote: { lease: SearchServiceOptions['lease']; available: (env: string) => boolean }): void {
    this.#lease = remote.lease;
    this.#remoteAvailable = remote.available;
  }

  /** A process of this daemon's own pools (what a cluster worker leases to fronts). */
  localLease(env: EnvironmentConfig, header: string, signal: AbortSignal, prefer?: string): Promise<SessionLease> {
    return this.#opts.lease(env, header, signal, prefer);
  }

  /** The environment a start names, if it can run Lean (here, or on a worker when pinned). */
  environment(name: string): EnvironmentConfig {
    const remote = this.#remoteAvailable;
    if (!remote) return this.localEnvironment(name);
    const env = this.#configured(name);
    if (!remote(name)) throw serviceError('environment_unavailable', 'cluster_no_worker', { env: name });
    return env;
  }

  #configured(name: string): EnvironmentConfig {
    const env = this.#opts.registry.get(name);
    if (!env)
      throw serviceError(
        'unknown_environment',
        'environment',
        { name: clip(name), known: this.#opts.registry.names().join(', ') || 'none configured' },
        { details: [{ field: 'request.environment', message: 'names no configured environment' }] },
      );
    return env;
  }

  /** The environment, if this daemon itself can run Lean for it. */
  localEnvironment(name: string): EnvironmentConfig {
    const env = this.#configured(name);
    const a = this.#opts.registry.availability(name);
    if (!a.available)
      throw serviceError('environment_unavailable', 'cannot_run_lean', {
        env: name,
        reason: a.reason,
        withoutLean: '',
      });
    return env;
  }

  newHost(environment: string, header: string): ProcessHost {
    return new ProcessHost({
      environment,
      slots: this.slots,
      lease: (signal, prefer) => this.#lease(this.environment(environment), header, signal, prefer),
    });
  }

  stats(owner?: StateOwner): Omit<GoalStatResult, 'processes'> {
    const c = this.config;
    const mine = owner ? this.registry.account(owner.caller.id) : { states: 0, bytes: 0 };
    return {
      connection: { states: owner ? this.registry.held(owner) : 0 },
      caller: {
        states: mine.states,
        maxStates: c.maxStatesPerCaller,
        bytes: mine.bytes,
        maxBytes: c.maxStateBytesPerCaller,
      },
      daemon: {
        states: this.registry.size,
        maxStates: c.maxStates,
        bytes: this.registry.bytes,
        maxBytes: c.maxStateBytes,
        processes: this.slots.used,
        maxProcesses: this.slots.max,
      },
      cache: { entries: this.cache.size, hits: this.cache.hits, misses: this.cache.misses },
    };
  }

  /** The daemon closes: every session ends (their processes are the backend's to destroy). */
  close(): void {
    for (const s of this.#sessions) s.close();
    this.#sessions.clear();
    this.registry.close();
    void this.plans.destroy();
  }
}

/** A message's request validated by its zod schema; field paths in the error are relative to the message. */
function parse<T extends SearchTool>(tool: T, raw: unknown): SearchRequest<T> {
  const body = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  const clean = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
  const r = SEARCH_REQUESTS[tool].safeParse(clean);
  if (r.success) return r.data as SearchRequest<T>;
  const details = issuesToDetails(r.error.issues, tool).map((d) => ({
    ...d,
    field: d.field ? `request.${d.field}` : 'request',
  }));
  throw serviceError('invalid_request', 'fields', { tool, problems: describeDetails(details) }, { details });
}
