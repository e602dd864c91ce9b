/**
 * Daemon configuration: `config/default.json`, then an optional overlay file
 * (`LEAN_TOOL_CONFIG`, default `config/local.json` when present), then environment
 * variables (HOST, PORT, LEAN_TOOL_API_KEYS, LEAN_TOOL_ADMIN_KEYS; the cluster's in
 * src/cluster/config.ts: LEAN_TOOL_ROLE, NATS_URL, ...). Only
 * `src/main.ts` calls `loadConfig`; everything else receives a Config.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { applyClusterEnv, clusterConfig } from './cluster/config.ts';
import { comparatorConfig } from './envs/comparator-config.ts';
import { environmentConfig, processLimits } from './envs/config.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const keyEntry = z.strictObject({
  key: z.string().min(8, 'API keys must be at least 8 characters'),
  name: z.string().optional(),
  admin: z.boolean().default(false),
  concurrency: z.number().int().positive().optional(),
});

export const configSchema = z.strictObject({
  server: z.strictObject({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8080),
    bodyLimitBytes: z.number().int().positive().default(16 * 1024 * 1024),
    /** How long SIGTERM waits for in-flight and queued requests before exiting anyway. */
    drainTimeoutMs: z.number().int().nonnegative().default(30_000),
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
    stream: z.strictObject({
      sendBudgetBytes: z.number().int().positive().default(8 * 1024 * 1024),
      sendHardLimitBytes: z.number().int().positive().default(64 * 1024 * 1024),
      pingIntervalMs: z.number().int().positive().default(30_000),
      idleTimeoutMs: z.number().int().positive().default(300_000),
    }).prefault({}),
  }).prefault({}),
  admission: z.strictObject({
    anonymousConcurrency: z.number().int().positive().default(1),
    anonymousQueueLimit: z.number().int().nonnegative().default(16),
    keyConcurrency: z.number().int().positive().default(20),
    keyQueueLimit: z.number().int().nonnegative().default(1000),
    adminConcurrency: z.number().int().positive().default(64),
    maxTimeoutSeconds: z.number().positive().default(900),
    retryAfterSeconds: z.number().int().positive().default(2),
  }).prefault({}),
  keys: z.array(keyEntry).default([]),
  environments: z.array(environmentConfig).default([]),
  /** Seconds between re-probes of an unavailable environment's toolchain. */
  availabilityTtlSeconds: z.number().nonnegative().default(30),
  /** Lean worker pools (per environment) and per-process limits. */
  lean: z.strictObject({
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
    startupTimeoutSeconds: z.number().positive().default(600),
    rssPollMs: z.number().int().positive().default(1000),
  }).prefault({}),
  /** Per-field input limits (400 naming the field past them); see README "Input limits". */
  limits: z.strictObject({
    contentBytes: z.number().int().positive().default(8 * 1024 * 1024),
    names: z.number().int().positive().default(100_000),
    indices: z.number().int().positive().default(100_000),
    renameEntries: z.number().int().positive().default(100_000),
    documents: z.number().int().positive().default(1_000),
  }).prefault({}),
  /** The worker-thread pool for tools that need no Lean (parsing and rewriting off the event loop). */
  workers: z.strictObject({
    /** Threads (0: the number of cores, at most 4). */
    threads: z.number().int().nonnegative().default(0),
    /** Heap limit of each worker (MiB); a task needing more fails alone. */
    maxHeapMb: z.number().int().positive().default(1024),
  }).prefault({}),
  /** The comparator tool's builds (pinned per Lean version) and run limits. */
  comparator: comparatorConfig.prefault({}),
  cache: z.strictObject({
    maxBytes: z.number().int().nonnegative().default(256 * 1024 * 1024),
  }).prefault({}),
  /** Scale-out over NATS JetStream (src/cluster); the default is one machine, no NATS. */
  cluster: clusterConfig,
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type KeyEntry = z.output<typeof keyEntry>;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read config file ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** Shallow-by-section merge: overlay sections replace keys inside base sections; arrays replace. */
function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const b = out[k];
    out[k] = b && v && typeof b === 'object' && typeof v === 'object' && !Array.isArray(b) && !Array.isArray(v) ? { ...b, ...v } : v;
  }
  return out;
}

const splitKeys = (s: string | undefined) => (s ?? '').split(',').map((k) => k.trim()).filter(Boolean);

export function loadConfig(env: NodeJS.ProcessEnv = process.env, root = PROJECT_ROOT): Config {
  let raw = readJson(path.join(root, 'config', 'default.json')) as Record<string, unknown>;
  const overlayFile = env.LEAN_TOOL_CONFIG ?? path.join(root, 'config', 'local.json');
  if (existsSync(overlayFile)) raw = overlay(raw, readJson(overlayFile) as Record<string, unknown>);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid configuration: ${z.prettifyError(parsed.error)}`);
  const config = parsed.data;
  if (env.HOST) config.server.host = env.HOST;
  if (env.PORT) {
    const port = Number(env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer 0-65535, got ${env.PORT}`);
    config.server.port = port;
  }
  for (const key of splitKeys(env.LEAN_TOOL_API_KEYS)) config.keys.push(keyEntry.parse({ key }));
  for (const key of splitKeys(env.LEAN_TOOL_ADMIN_KEYS)) config.keys.push(keyEntry.parse({ key, admin: true }));
  applyClusterEnv(config.cluster, env);
  // Relative project directories are relative to the project root, not the cwd.
  for (const e of config.environments) if (!path.isAbsolute(e.project_dir)) e.project_dir = path.join(root, e.project_dir);
  return config;
}
