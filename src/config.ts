/**
 * Daemon configuration: `config/default.json`, then an overlay file (`LEAN_TOOL_CONFIG`,
 * which must exist when set; else `config/local.json` when present; both read by
 * src/config-files.ts), then environment
 * variables (HOST, PORT, LEAN_TOOL_API_KEYS, LEAN_TOOL_ADMIN_KEYS; the cluster's in
 * src/cluster/config.ts: LEAN_TOOL_ROLE, NATS_URL, ...). Only
 * `src/main.ts` calls `loadConfig`; everything else receives a Config.
 */
import path from 'node:path';
import { z } from 'zod';
import { applyClusterEnv, clusterConfig, effectiveSlots, usesNats } from './cluster/config.ts';
import { searchConfig } from './search/config.ts';
import { comparatorConfig } from './envs/comparator-config.ts';
import { environmentConfig, processLimits } from './envs/config.ts';

import { PROJECT_ROOT } from './project-root.ts';
import { ConfigError, readConfigFiles } from './config-files.ts';

// Scripts and tests import them from here with the configuration.
export { ConfigError, PROJECT_ROOT };

const keyEntry = z.strictObject({
  key: z.string().min(8, 'API keys must be at least 8 characters'),
  name: z.string().optional(),
  admin: z.boolean().default(false),
  concurrency: z.number().int().positive().optional(),
});

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(8080),
      bodyLimitBytes: z
        .number()
        .int()
        .positive()
        .default(16 * 1024 * 1024),
      /**
       * Tell callers whether a result came from the cache (`x-cache`, the stream's `cache`
       * member). Off: a hit would tell any caller that someone sent that exact body before
       * (docs/http-api.md#result-cache); on for a daemon with one caller.
       */
      cacheStatus: z.boolean().default(false),
      /**
       * Origins a browser page may call from (CORS, src/server/cors.ts): `["*"]` any origin, as AXLE's
       * public API (CHANGELOG v1.4.0); a list of exact origins (`https://app.example`); `[]` off.
       */
      corsOrigins: z.array(z.string().min(1).max(200)).max(100).default(['*']),
      /** How long SIGTERM waits for in-flight and queued requests before exiting anyway. */
      drainTimeoutMs: z.number().int().nonnegative().default(30_000),
      /**
       * On SIGTERM, how long readiness answers 503 while the daemon still accepts and serves
       * everything, before it stops accepting and drains: the time a load balancer needs to
       * see the 503 and route elsewhere. null: CLUSTER_SHUTDOWN_DELAY_MS with a NATS URL (a node
       * behind a load balancer), else 0 (SIGINT never waits).
       */
      shutdownDelayMs: z.number().int().nonnegative().nullable().default(null),
      /** Whole request (headers and body) must arrive within this (Node's requestTimeout): stalled uploads get 408 and are closed. */
      requestTimeoutMs: z.number().int().positive().default(60_000),
      /** Headers must arrive within this (Node's headersTimeout; at most requestTimeoutMs). */
      headersTimeoutMs: z.number().int().positive().default(15_000),
      /** A socket with no traffic at all for this long is closed (fastify connectionTimeout); above the longest deadline. */
      connectionTimeoutMs: z.number().int().nonnegative().default(960_000),
      /** An idle keep-alive connection is closed after this. */
      keepAliveTimeoutMs: z.number().int().positive().default(10_000),
      /** How often Node checks the request and headers timeouts (so they fire within this much of their value). */
      timeoutCheckIntervalMs: z.number().int().positive().default(1_000),
      /** WebSocket flow control and liveness (/v1/stream). */
      stream: z
        .strictObject({
          sendBudgetBytes: z
            .number()
            .int()
            .positive()
            .default(8 * 1024 * 1024),
          sendHardLimitBytes: z
            .number()
            .int()
            .positive()
            .default(64 * 1024 * 1024),
          pingIntervalMs: z.number().int().positive().default(30_000),
          idleTimeoutMs: z.number().int().positive().default(300_000),
        })
        .prefault({}),
      /** MCP sessions of /mcp (src/server/adapters/mcp-endpoint.ts; docs/mcp.md). */
      mcp: z
        .strictObject({
          maxSessions: z.number().int().positive().default(64),
          maxSessionsPerCaller: z.number().int().positive().default(8),
          idleSeconds: z.number().positive().default(600),
          progressIntervalMs: z.number().int().nonnegative().default(500),
        })
        .prefault({}),
      /** Kimina Lean Server's routes (src/server/adapters/kimina.ts; docs/kimina.md). */
      kimina: z
        .strictObject({
          /** The environment snippets run on; null: the default one (src/envs/latest.ts). */
          environment: z.string().min(1).nullable().default(null),
          maxSnippets: z.number().int().positive().default(1000),
        })
        .prefault({}),
    })
    .prefault({}),
  admission: z
    .strictObject({
      anonymousConcurrency: z.number().int().positive().default(1),
      /** At least twice a client's default fan-out (the spec's and AXLE's clients send 20 at once): no 429 for one client at its defaults. */
      anonymousQueueLimit: z.number().int().nonnegative().default(64),
      keyConcurrency: z.number().int().positive().default(20),
      keyQueueLimit: z.number().int().nonnegative().default(1000),
      adminConcurrency: z.number().int().positive().default(64),
      maxTimeoutSeconds: z.number().positive().default(900),
      retryAfterSeconds: z.number().int().positive().default(2),
      /** Open mode (no keys): distinct bearers served as keys of their own; later ones share one (docs/auth.md). */
      openModeBearers: z.number().int().positive().default(256),
    })
    .prefault({}),
  keys: z.array(keyEntry).default([]),
  environments: z.array(environmentConfig).default([]),
  /** Seconds between re-probes of an unavailable environment's toolchain. */
  availabilityTtlSeconds: z.number().nonnegative().default(30),
  /** Lean worker pools (per environment) and per-process limits. */
  lean: z
    .strictObject({
      /** Sessions kept warm per available environment (0: start on first request). */
      minWarm: z.number().int().nonnegative().default(1),
      /** Lean processes per environment, all import headers together (one header per process). */
      maxSessions: z.number().int().positive().default(2),
      /** Lean processes in the daemon, all environments together (memory is the scarce resource). */
      maxProcesses: z.number().int().positive().default(4),
      /** Recycle a session after this many requests (REPL env snapshots are never freed). */
      maxUses: z.number().int().positive().default(500),
      /** The hard memory cap (MiB): the watchdog kills a process above it, even mid-request. */
      maxRssMb: z.number().int().positive().default(12_288),
      /** The soft threshold in percent of maxRssMb: above it a session retires between requests, never during one. */
      softRssPercent: z.number().positive().max(100).default(70),
      /** Recycle after this many REPL states (commands sent since spawn): the REPL keeps every one. */
      maxStates: z.number().int().positive().default(10_000),
      /** Retire sessions idle this long above minWarm (an idle session holds gigabytes); 0: never. */
      idleSeconds: z.number().nonnegative().default(900),
      /** maxHeartbeats units (thousands) one second of a request's remaining time buys; 0: no Lean-side budget. */
      heartbeatsPerSecond: z.number().nonnegative().default(20_000),
      /** After a deadline, how long Lean may take to stop a command before its process is killed. */
      killGraceSeconds: z.number().nonnegative().default(5),
      /** The jail REPLs run in: "bwrap" (default) or "none" (must be chosen explicitly; logged as a warning). */
      sandbox: z.enum(['bwrap', 'none']).default('bwrap'),
      /** Per-process limits (0 disables one); an environment may override any of them. */
      limits: processLimits.prefault({}),
      /** Command outcomes a session remembers for prefix reuse. */
      prefixEntries: z.number().int().positive().default(20_000),
      /** A header that only adds imports the environment's own loaded runs on the own header's processes (docs/environments.md). */
      reuseLoadedImports: z.boolean().default(true),
      /** Answers kept for Lean jobs that differ only in comments, answered again without Lean (docs/lean-backend.md); 0: none. */
      commentMemoEntries: z.number().int().nonnegative().default(4096),
      startupTimeoutSeconds: z.number().positive().default(600),
      rssPollMs: z.number().int().positive().default(1000),
    })
    .prefault({}),
  /** Per-field input limits (400 naming the field past them); see docs/configuration.md. */
  limits: z
    .strictObject({
      contentBytes: z
        .number()
        .int()
        .positive()
        .default(8 * 1024 * 1024),
      names: z.number().int().positive().default(100_000),
      indices: z.number().int().positive().default(100_000),
      renameEntries: z.number().int().positive().default(100_000),
      documents: z.number().int().positive().default(1_000),
      /** A response may be this many times its request's size (413 response_too_large past it: no answer grows without bound)… */
      responseFactor: z.number().positive().default(8),
      /** …and always at least this many bytes. */
      responseMinBytes: z
        .number()
        .int()
        .positive()
        .default(1024 * 1024),
    })
    .prefault({}),
  /** The worker-thread pool for tools that need no Lean (parsing and rewriting off the event loop). */
  workers: z
    .strictObject({
      /** Threads (0: the number of cores, at most 4). */
      threads: z.number().int().nonnegative().default(0),
      /** Heap limit of each worker (MiB); a task needing more fails alone. */
      maxHeapMb: z.number().int().positive().default(1024),
      /** A Lean-backed request up to this size (characters) runs on the main thread; larger ones on a worker. */
      inlineMaxChars: z
        .number()
        .int()
        .nonnegative()
        .default(32 * 1024),
    })
    .prefault({}),
  /** The comparator tool's builds (pinned per Lean version) and run limits. */
  comparator: comparatorConfig.prefault({}),
  cache: z
    .strictObject({
      maxBytes: z
        .number()
        .int()
        .nonnegative()
        .default(256 * 1024 * 1024),
    })
    .prefault({}),
  /** Answered requests kept for `POST /v1/shared-links`, and saved links (docs/shared-links.md). */
  sharedLinks: z
    .strictObject({
      enabled: z.boolean().default(true),
      recentSeconds: z.number().nonnegative().default(3600),
      recentMaxBytes: z
        .number()
        .int()
        .positive()
        .default(32 * 1024 * 1024),
      ttlSeconds: z
        .number()
        .positive()
        .default(7 * 24 * 3600),
      maxBytes: z
        .number()
        .int()
        .positive()
        .default(32 * 1024 * 1024),
    })
    .prefault({}),
  /**
   * The hand-written fast paths, each on by default; off takes the plain path, which answers the
   * same bytes (test/fast-paths.test.ts). What each saves and when it is to go: docs/hot-paths.md.
   */
  fastPaths: z
    .strictObject({
      /** Cache hits answered before fastify (src/server/hit-front.ts); off: fastify's route answers them. */
      hitFront: z.boolean().default(true),
      /** The front knows a repeated body by its bytes (src/cache/known-bodies.ts); off: its raw key is made each time. */
      knownBodies: z.boolean().default(true),
      /** The REPL's common command answer read by hand beside zod (src/backend/protocol/schema.ts); off: zod alone. */
      replAnswerByHand: z.boolean().default(true),
      /** The route's light abort controller (src/util/request-abort.ts); off: Node's AbortController. */
      lightAbortController: z.boolean().default(true),
      /** V8's code cache for the built daemon (scripts/code-cache.mjs); off: Node's require() compiles the bundle. */
      codeCache: z.boolean().default(true),
      /** A parent-or-timeout signal on its own timer (src/util/timeout-signal.ts); off: AbortSignal.any with AbortSignal.timeout. */
      deadlineSignal: z.boolean().default(true),
    })
    .prefault({}),
  /** Scale-out over NATS JetStream (src/cluster); the default is one machine, no NATS. */
  cluster: clusterConfig,
  /** Proof search sessions on /v1/stream (src/search, docs/proof-search.md). */
  search: searchConfig,
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type KeyEntry = z.output<typeof keyEntry>;

/** zod issues as one line: `admission.keyConcurrency: Too small: expected number to be >0; …`. */
const oneLine = (issues: readonly z.core.$ZodIssue[]) =>
  issues
    .map(
      (i) =>
        `${i.path.join('.') || '(top level)'}: ` +
        (i.code === 'unrecognized_keys'
          ? `unknown setting${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}`
          : i.message),
    )
    .join('; ');

const splitKeys = (s: string | undefined) =>
  (s ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);

export interface LoadedConfig {
  config: Config;
  /** The files read, in order (for the startup log). */
  files: string[];
}

/** Keys from a variable: each must pass the key rules; the error names the variable, never the key. */
function keysFrom(variable: string, value: string | undefined, admin: boolean): KeyEntry[] {
  const keys = splitKeys(value);
  return keys.map((key, i) => {
    const r = keyEntry.safeParse({ key, admin });
    if (!r.success)
      throw new ConfigError(
        `${variable}: key ${i + 1} of ${keys.length} is invalid: ${r.error.issues.map((x) => x.message).join('; ')} (it has ${key.length})`,
      );
    return r.data;
  });
}

export interface LoadOptions {
  /** lean:setup creates the overlay it is told to write: a LEAN_TOOL_CONFIG not yet there is then no error. */
  overlayMayBeMissing?: boolean;
}

export function loadConfigFiles(env: NodeJS.ProcessEnv, root = PROJECT_ROOT, opts: LoadOptions = {}): LoadedConfig {
  const { raw, files } = readConfigFiles(env, root, opts.overlayMayBeMissing);
  return finish(raw, files, env, root);
}

function finish(raw: Record<string, unknown>, files: string[], env: NodeJS.ProcessEnv, root: string): LoadedConfig {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(
      `invalid configuration in ${files.map((f) => path.relative(root, f) || f).join(' + ')}: ${oneLine(parsed.error.issues)}`,
    );
  const config = parsed.data;
  if (env.HOST) config.server.host = env.HOST;
  if (env.PORT) {
    const port = Number(env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new ConfigError(`PORT must be an integer 0-65535, got ${env.PORT}`);
    config.server.port = port;
  }
  for (const k of keysFrom('LEAN_TOOL_API_KEYS', env.LEAN_TOOL_API_KEYS, false)) config.keys.push(k);
  for (const k of keysFrom('LEAN_TOOL_ADMIN_KEYS', env.LEAN_TOOL_ADMIN_KEYS, true)) config.keys.push(k);
  applyClusterEnv(config.cluster, env);
  if (env.LEAN_TOOL_MAX_SESSIONS) {
    const n = Number(env.LEAN_TOOL_MAX_SESSIONS);
    if (!Number.isInteger(n) || n < 1)
      throw new ConfigError(`LEAN_TOOL_MAX_SESSIONS must be a positive integer, got ${env.LEAN_TOOL_MAX_SESSIONS}`);
    config.lean.maxSessions = n;
  }
  // A worker's slots against its Lean sessions: a contradiction is refused here, at startup.
  if (usesNats(config.cluster) && config.cluster.role !== 'front') effectiveSlots(config.cluster, config.lean);
  // Relative project directories are relative to the project root, not the cwd.
  for (const e of config.environments)
    if (!path.isAbsolute(e.project_dir)) e.project_dir = path.join(root, e.project_dir);
  return { config, files };
}

export function loadConfig(env: NodeJS.ProcessEnv, root = PROJECT_ROOT, opts: LoadOptions = {}): Config {
  return loadConfigFiles(env, root, opts).config;
}

/** The default of server.shutdownDelayMs on a cluster node: above k8s's readiness probe (deploy/k8s: every 2 s, 2 failures). */
export const CLUSTER_SHUTDOWN_DELAY_MS = 5_000;

/** server.shutdownDelayMs as it applies to this daemon. */
export function shutdownDelayMs(config: Config): number {
  return config.server.shutdownDelayMs ?? (usesNats(config.cluster) ? CLUSTER_SHUTDOWN_DELAY_MS : 0);
}
