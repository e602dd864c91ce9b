/**
 * The composition root: builds the logger, environment registry, admission and
 * tools from a Config, and wires them into a fastify instance. Nothing else
 * creates long-lived state. It only wires: what each part reads (files, the
 * process environment) and reports (status) lives in that part's own module.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { KeyRing, type Caller } from './admission/keys.ts';
import { ConcurrencyLimiter } from './admission/limiter.ts';
import { LeanBackend, type LeanRunner } from './backend/index.ts';
import type { LaunchSpec } from './backend/process/launch.ts';
import { ResultCache } from './cache/result-cache.ts';
import { usesNats } from './cluster/config.ts';
import type { ClusterNode } from './cluster/node.ts';
import type { Config } from './config.ts';
import { PROJECT_ROOT } from './project-root.ts';
import { rootLogger, silentLogger } from './log.ts';
import type { EnvironmentConfig } from './envs/config.ts';
import { EnvironmentRegistry, type Probe } from './envs/registry.ts';
import { startupWarnings, unjailedWarnings } from './envs/warnings.ts';
import { serviceError } from './errors.ts';
import { registerMetrics } from './metrics/http.ts';
import { Metrics } from './metrics/metrics.ts';
import { registerBodyParsers } from './server/body.ts';
import { registerDocs } from './server/docs.ts';
import { rawHitCheck } from './server/hit-path.ts';
import { sendError, toFrameworkError, writeClientError } from './server/error-handler.ts';
import { Pipeline } from './server/pipeline.ts';
import { registerNotFound, registerRoutes } from './server/routes.ts';
import { registerRequestLog } from './server/request-log.ts';
import { localReadiness, registerHealth } from './server/health.ts';
import { statusReport } from './server/status.ts';
import { registerStream } from './server/stream.ts';
import { registerMcp } from './server/adapters/mcp.ts';
import { registerKimina } from './server/adapters/kimina.ts';
import { registerSharedLinkRoutes, SharedLinks } from './server/shared-links.ts';
import { SearchService } from './search/service.ts';
import { registerEndpoints } from './server/endpoints.ts';
import { builtinTools } from './tools/index.ts';
import { ComparatorBackend } from './backend/comparator/runner.ts';
import type { ToolTable } from './tools/types.ts';
import { StructuralPool } from './workers/structural-pool.ts';
import { VERSION } from './version.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyInstance {
    /** Start the structural worker threads now (the daemon's entry does at startup); resolves once they serve. */
    warmWorkers(): Promise<boolean>;
    /** This daemon's part in a NATS cluster (front and/or worker); undefined on a single machine. */
    cluster: ClusterNode | undefined;
  }
}

export interface AppOptions {
  config: Config;
  /** A pino logger, or false for silence (tests). */
  logger?: Logger | false;
  /** Override tool implementations (tests inject slow or failing ones). */
  tools?: ToolTable;
  /** Override the environment availability probe (tests). */
  probe?: Probe;
  /** Override how a REPL is launched (tests: the fake REPL double; never a product backend). */
  launch?: (env: EnvironmentConfig) => LaunchSpec;
  /** Override the Lean runner tools use (tests: a scripted runner double; never a product backend). */
  lean?: LeanRunner;
  /** Startup warnings about environments and bubblewrap (default true; benchmarks may skip them). */
  startupChecks?: boolean;
  /** The process environment the host is discovered from (PATH, ELAN_HOME, LOG_LEVEL…); default: this process's. */
  hostEnv?: NodeJS.ProcessEnv;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const hostEnv = opts.hostEnv ?? process.env;
  const logger = opts.logger === false ? silentLogger() : (opts.logger ?? rootLogger(hostEnv));
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One line per request, written in onResponse below, instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimitBytes,
    // Shutdown: our own 503 envelope (authorize below) on connections that stay open until they
    // close, rather than fastify's bare 503 or closing idle keep-alive connections under a client.
    return503OnClosing: false,
    forceCloseConnections: false,
    requestTimeout: config.server.requestTimeoutMs,
    connectionTimeout: config.server.connectionTimeoutMs,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(config.server.headersTimeoutMs, config.server.requestTimeoutMs),
      connectionsCheckingInterval: config.server.timeoutCheckIntervalMs,
    },
    // Errors raised before any route (Node's HTTP parser, the router) in the same envelope.
    clientErrorHandler: writeClientError,
    frameworkErrors: (err, request, reply) => sendError(toFrameworkError(err), request, reply),
  });

  const registry = new EnvironmentRegistry(config.environments, {
    ttlMs: config.availabilityTtlSeconds * 1000,
    defaultSandbox: config.lean.sandbox,
    ...(opts.probe ? { probe: opts.probe } : { hostEnv }),
  });
  const warnings = unjailedWarnings(config.environments, config.lean.sandbox);
  for (const w of warnings) logger.warn(w);
  // Environments that cannot run Lean, and a missing bubblewrap, said before the daemon is ready rather than at the
  // first request; bwrap's self-test runs as a child process while the routes are built (onReady waits for it).
  if (opts.startupChecks !== false) {
    const checked = startupWarnings(config.environments, registry, config.lean.sandbox, hostEnv).then((ws) => {
      for (const w of ws) logger.warn(w);
      warnings.push(...ws);
    });
    app.addHook('onReady', () => checked);
  }
  const a = config.admission;
  const keys = new KeyRing(
    config.keys,
    {
      anonymous: a.anonymousConcurrency,
      user: a.keyConcurrency,
      admin: a.adminConcurrency,
    },
    { openBearers: a.openModeBearers },
  );
  logger.info({ openMode: keys.open }, keys.describe());
  const limiter = new ConcurrencyLimiter({
    queueLimit: (c) => (c.keyClass === 'anonymous' ? a.anonymousQueueLimit : a.keyQueueLimit),
    retryAfterSeconds: a.retryAfterSeconds,
  });
  const backend = new LeanBackend({
    limits: config.lean,
    log: logger,
    ...(opts.launch ? { launch: opts.launch } : { hostEnv }),
  });
  const cache = new ResultCache(config.cache.maxBytes);
  // Proof search sessions on /v1/stream (src/search): processes leased from the same pools.
  const search = SearchService.forBackend(backend, {
    config: config.search,
    heartbeatsPerSecond: config.lean.heartbeatsPerSecond,
    registry,
  });
  const comparator = new ComparatorBackend({
    root: PROJECT_ROOT,
    config: config.comparator,
    sandbox: config.lean.sandbox,
    limits: config.lean.limits,
    parentEnv: hostEnv,
  });
  const structural = new StructuralPool({ threads: config.workers.threads, maxHeapMb: config.workers.maxHeapMb });
  const tools = { ...builtinTools({ comparator }), ...opts.tools };
  const lean = opts.lean ?? backend;

  // --- Scale-out (src/cluster) and metrics (src/metrics): issue 17 ---------------------------
  // With no NATS URL (the default) nothing here touches the network and the NATS client is not even loaded.
  let cluster: ClusterNode | undefined;
  const metrics = new Metrics({
    admission: () => limiter.stats(),
    pools: () => backend.stats(),
    cache: () => cache.stats(),
    queues: () => cluster?.queues() ?? [],
    cluster: () => cluster?.gauges(),
  });
  if (usesNats(config.cluster)) {
    const { ClusterNode } = await import('./cluster/node.ts');
    cluster = await ClusterNode.start({
      config: config.cluster,
      leanLimits: config.lean,
      bodyLimitBytes: config.server.bodyLimitBytes,
      registry,
      tools,
      lean,
      log: logger,
      frontObserver: metrics.front,
      workerObserver: metrics.worker,
      connectionObserver: metrics.connection,
      pools: () => backend.stats(),
    });
  }
  app.decorate('cluster', cluster);
  registerMetrics(app, metrics, (request) => authorize(request));
  // --------------------------------------------------------------------------------------------

  const pipeline = new Pipeline({
    registry,
    limiter,
    tools,
    lean,
    cache,
    maxTimeoutSeconds: a.maxTimeoutSeconds,
    limits: config.limits,
    structural,
    ...(cluster?.front ? { executor: cluster.front } : {}),
  });
  const startedAt = Date.now();
  let closing = false;
  const links = new SharedLinks(config.sharedLinks, () => keys.open);

  app.decorate('warmWorkers', () => structural.warm());
  registerBodyParsers(app, { answeredRaw: rawHitCheck((tool, raw) => pipeline.lookupRaw(tool, raw)) });
  app.decorateRequest('svc', null as never);
  app.decorateRequest('caller', null as never);
  // Authentication runs inside the handlers rather than as an onRequest hook: a global hook
  // costs every request ~20% of throughput on the cache-hit path, which is the hot one.
  const authorize = (request: FastifyRequest): Caller => {
    if (closing)
      throw serviceError('overloaded', 'shutting_down', { what: 'the daemon' }, { retryAfter: a.retryAfterSeconds });
    request.caller = keys.identify(request.headers.authorization);
    return request.caller;
  };
  // The public listings need no key, even when keys are configured (docs/auth.md).
  const authorizeListing = (request: FastifyRequest): Caller => {
    if (closing)
      throw serviceError('overloaded', 'shutting_down', { what: 'the daemon' }, { retryAfter: a.retryAfterSeconds });
    request.caller = keys.identifyLenient(request.headers.authorization);
    return request.caller;
  };
  registerRequestLog(app, logger);
  // From the moment close starts, new requests get our 503 envelope; in-flight and queued ones finish.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onClose', async () => {
    closing = true;
    // In-flight requests have finished (fastify waits for them); now the cluster jobs, then the Lean sessions.
    await cluster?.close();
    search.close();
    await backend.destroy();
    await structural.destroy();
  });
  app.addHook('onReady', async () => {
    // Warm the pools of the environments that can run Lean now.
    if (config.lean.minWarm > 0 && config.cluster.role !== 'front')
      for (const name of registry.names()) if (registry.availability(name).available) backend.pool(registry.get(name)!);
  });
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));
  registerNotFound(app);
  registerHealth(app, {
    closing: () => closing,
    ready: () => (cluster ? cluster.readiness() : localReadiness(registry.list())),
  });

  await registerDocs(app, VERSION);
  await registerStream(app, pipeline, {
    links,
    maxPayloadBytes: config.server.bodyLimitBytes,
    authorize,
    limits: config.server.stream,
    closing: () => closing,
    extension: search,
    // Leave the exit timer (main.ts) time to see the sockets close.
    drainTimeoutMs: Math.max(0, config.server.drainTimeoutMs - 2_000),
  });
  const environments = () => (cluster ? cluster.environments(registry.list()) : registry.list());
  // Adapters at the edge (issue 29): other protocols onto the same pipeline, keys and admission.
  registerMcp(app, { authorize, pipeline, version: VERSION, environments, limits: config.server.mcp, links });
  registerKimina(app, {
    authorize,
    closing: () => closing,
    pipeline,
    environment: () => config.server.kimina.environment ?? config.environments[0]?.name,
    maxSnippets: config.server.kimina.maxSnippets,
  });
  registerSharedLinkRoutes(app, links, authorize);
  registerEndpoints(app, authorizeListing);
  registerRoutes(app, {
    links,
    authorize,
    authorizeListing,
    closing: () => closing,
    pipeline,
    version: VERSION,
    environments,
    status: () => ({
      ...statusReport({ version: VERSION, warnings, startedAt, registry, limiter, backend, cache, keys }),
      workers: structural.stats(),
      shared_links: links.stats(),
      ...(cluster ? { cluster: cluster.status() } : {}),
    }),
  });
  return app;
}
