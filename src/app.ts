/**
 * The composition root: builds the logger, environment registry, admission and
 * tools from a Config, and wires them into a fastify instance. Nothing else
 * creates long-lived state. It only wires: what each part reads (files, the
 * process environment) and reports (status) lives in that part's own module.
 */
import { ProvenanceTable } from './envs/provenance.ts';
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
import { registerDocPages } from './server/doc-pages.ts';
import { corsPolicy, registerCors } from './server/cors.ts';
import { rawHitCheck } from './server/hit-path.ts';
import { sendError, toFrameworkError, writeClientError } from './server/error-handler.ts';
import { Pipeline, toolsWithoutLean } from './server/pipeline.ts';
import type { LeanSummary } from './server/listening-line.ts';
import { registerNotFound, registerRoutes } from './server/routes.ts';
import { hitLineWriter, registerRequestLog } from './server/request-log.ts';
import { HitFront, hitRecorder } from './server/hit-front.ts';
import { ReqIds } from './server/request-id.ts';
import { lazyChildLogger } from './server/request-logger.ts';
import { localReadiness, registerHealth } from './server/health.ts';
import { statusReport } from './server/status.ts';
import { registerStream } from './server/stream.ts';
import { MCP_PATH, registerMcp } from './server/adapters/mcp.ts';
import { mcpRawScreen } from './server/adapters/mcp-limits.ts';
import { registerKimina } from './server/adapters/kimina.ts';
import { latestEnvironment } from './envs/latest.ts';
import type { EnvironmentInfo } from './contract/common.ts';
import { registerSharedLinkRoutes, SharedLinks } from './server/shared-links.ts';
import { SearchService } from './search/service.ts';
import { registerEndpoints } from './server/endpoints.ts';
import { builtinTools } from './tools/index.ts';
import { ComparatorBackend } from './backend/comparator/runner.ts';
import type { ToolTable } from './tools/types.ts';
import { StructuralPool } from './workers/structural-pool.ts';
import { screenBody } from './server/deferred-body.ts';
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
    /** Readiness answers 503 ("shutting down") from now on; everything else is served as before (main.ts, before close). */
    unready(): void;
    /** Which environments can run Lean now, and what answers without it (for the startup line). */
    leanSummary(): LeanSummary;
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
  /** Reserve worker threads (src/workers/fair-scheduler.ts; default 1). Tests: 0, one thread fewer to start per daemon. */
  workerReserve?: number;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const hostEnv = opts.hostEnv ?? process.env;
  const logger = opts.logger === false ? silentLogger() : (opts.logger ?? rootLogger(hostEnv));
  // Cache hits are answered in front of fastify (src/server/hit-front.ts), on the server it would make.
  const front = new HitFront();
  const reqIds = new ReqIds();
  const app = createFastify(config, logger, front, reqIds);
  const { registry, warnings } = environments(app, opts, hostEnv, logger);
  const { keys, limiter } = admission(config, logger);
  const parts = backends(opts, hostEnv, logger, registry);
  const { metrics, cluster } = await scaleOut(config, logger, { registry, limiter, ...parts });
  const state = { closing: false, unready: false };
  const { authorize, authorizeListing } = authorizers(keys, state, config.admission.retryAfterSeconds);
  app.decorate('cluster', cluster);
  registerMetrics(app, metrics, (request) => authorize(request));

  const pipeline = pipelineOf(config, hostEnv, { registry, limiter, cluster, ...parts });
  const startedAt = Date.now();
  const links = new SharedLinks(config.sharedLinks, () => keys.open);

  app.decorate('warmWorkers', () => parts.structural.warm());
  app.decorate('unready', () => {
    state.unready = true;
  });
  app.decorate('leanSummary', () => ({
    environments: config.environments.map((e) => e.name),
    ready: config.environments.filter((e) => registry.availability(e.name).available).map((e) => e.name),
    withoutLean: toolsWithoutLean(parts.tools),
  }));
  registerBodyParsers(app, {
    answeredRaw: rawHitCheck((tool, raw) => pipeline.lookupRaw(tool, raw)),
    screenRaw: (raw, request) => screenBody(raw, request, config.limits, (tool) => pipeline.parsesOffThread(tool)),
    // MCP's tool arguments lie inside the JSON-RPC message: counted there, on the text too.
    replacedRaw: (req, raw) => (req.routeOptions.url === MCP_PATH ? mcpRawScreen(raw, config.limits) : undefined),
  });
  app.decorateRequest('svc', null as never);
  app.decorateRequest('caller', null as never);
  registerRequestLog(app, logger);
  // Off (fastPaths.hitFront): the front passes every request to fastify, whose route answers hits.
  if (config.fastPaths.hitFront)
    serveHits(front, { config, logger, cache: parts.cache, keys, state, reqIds, metrics, links });
  registerLifecycle(app, config, state, { registry, cluster, ...parts });
  const w = { config, registry, warnings, keys, limiter, cluster, pipeline, links, authorize, authorizeListing };
  const unready = () => state.closing || state.unready;
  await registerHttp(app, { ...w, ...parts, startedAt, closing: () => state.closing, unready });
  return app;
}

/** The request pipeline over the app's parts (a cluster's front, when there is one, executes); `info`'s provenance from the host's environment. */
function pipelineOf(
  config: AppOptions['config'],
  hostEnv: NodeJS.ProcessEnv,
  p: Pick<Parameters<typeof registerLifecycle>[3], 'registry' | 'cluster'> & {
    limiter: ReturnType<typeof admission>['limiter'];
  } & ReturnType<typeof backends>,
): Pipeline {
  return new Pipeline({
    registry: p.registry,
    limiter: p.limiter,
    tools: p.tools,
    lean: p.lean,
    cache: p.cache,
    maxTimeoutSeconds: config.admission.maxTimeoutSeconds,
    limits: config.limits,
    structural: p.structural,
    inlineMaxChars: config.workers.inlineMaxChars,
    coldStartSeconds: config.lean.startupTimeoutSeconds,
    provenance: new ProvenanceTable(hostEnv),
    ...(p.cluster?.front ? { executor: p.cluster.front } : {}),
  });
}

/** Everything the HTTP surface is wired to. */
interface Wired {
  config: Config;
  registry: EnvironmentRegistry;
  warnings: string[];
  keys: KeyRing;
  limiter: ConcurrencyLimiter;
  backend: LeanBackend;
  cache: ResultCache;
  search: SearchService;
  structural: StructuralPool;
  cluster: ClusterNode | undefined;
  pipeline: Pipeline;
  links: SharedLinks;
  authorize: (request: FastifyRequest) => Caller;
  authorizeListing: (request: FastifyRequest) => Caller;
  startedAt: number;
  closing: () => boolean;
  /** Shutting down or about to (readiness only). */
  unready: () => boolean;
}

/** Errors, health, docs, the WebSocket channel, the adapters, shared links and the tool routes. */
async function registerHttp(app: FastifyInstance, w: Wired): Promise<void> {
  const { config, registry, cluster } = w;
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));
  // Before every route: a preflight is answered 204, every other answer gets its CORS headers.
  registerCors(app, config.server.corsOrigins);
  registerNotFound(app);
  registerHealth(app, {
    closing: w.unready,
    ready: () => (cluster ? cluster.readiness() : localReadiness(registry.list())),
  });
  const environments = () => (cluster ? cluster.environments(registry.list()) : registry.list());
  await registerDocsAndStream(app, config, w);
  registerAdapters(app, config, { ...w, environments });
  registerRoutes(app, {
    links: w.links,
    cacheStatus: config.server.cacheStatus,
    lightAbortController: config.fastPaths.lightAbortController,
    authorize: w.authorize,
    authorizeListing: w.authorizeListing,
    closing: w.closing,
    pipeline: w.pipeline,
    version: VERSION,
    environments,
    status: () => ({
      ...statusReport({ ...w, version: VERSION }),
      workers: w.structural.stats(),
      shared_links: w.links.stats(),
      ...(cluster ? { cluster: cluster.status() } : {}),
    }),
  });
}

/** The fastify instance: its server (with the hit front), timeouts, logging and framework errors. */
function createFastify(config: Config, logger: Logger, front: HitFront, reqIds: ReqIds): FastifyInstance {
  return Fastify({
    serverFactory: front.serverFactory,
    genReqId: reqIds.next,
    loggerInstance: logger as FastifyBaseLogger,
    // One line per request, written in onResponse (src/server/request-log.ts), instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log made on its first line, not for every request (src/server/request-logger.ts).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.server.bodyLimitBytes,
    // Shutdown: our own 503 envelope (authorizers below) on connections that stay open until they
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
}

/** The environment registry, and the startup warnings about environments and the sandbox (logged). */
function environments(app: FastifyInstance, opts: AppOptions, hostEnv: NodeJS.ProcessEnv, logger: Logger) {
  const { config } = opts;
  const registry = new EnvironmentRegistry(config.environments, {
    ttlMs: config.availabilityTtlSeconds * 1000,
    defaultSandbox: config.lean.sandbox,
    ...(opts.probe ? { probe: opts.probe } : { hostEnv }),
  });
  const warnings = unjailedWarnings(config.environments, config.lean.sandbox);
  for (const w of warnings) logger.warn(w);
  const without = { reparseFalse: toolsWithoutLean({ ...builtinTools(), ...opts.tools }) };
  // Environments that cannot run Lean, and a missing bubblewrap, said before the daemon is ready rather than at the
  // first request; bwrap's self-test runs as a child process while the routes are built (onReady waits for it).
  if (opts.startupChecks !== false) {
    const checked = startupWarnings(config.environments, registry, config.lean.sandbox, hostEnv, without).then((ws) => {
      for (const { text, ...fields } of ws) logger.warn(fields, text);
      warnings.push(...ws.map((w) => w.text));
    });
    app.addHook('onReady', () => checked);
  }
  return { registry, warnings };
}

/** API keys and the per-caller concurrency limiter. */
function admission(config: Config, logger: Logger) {
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
  return { keys, limiter };
}

/** What tools run on: the Lean backend, result cache, proof search, structural workers, the tool table. */
function backends(opts: AppOptions, hostEnv: NodeJS.ProcessEnv, logger: Logger, registry: EnvironmentRegistry) {
  const { config } = opts;
  const backend = new LeanBackend({
    limits: config.lean,
    log: logger,
    replAnswerByHand: config.fastPaths.replAnswerByHand,
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
  const structural = new StructuralPool({
    threads: config.workers.threads,
    maxHeapMb: config.workers.maxHeapMb,
    reserveThreads: opts.workerReserve,
  });
  const tools: ToolTable = { ...builtinTools({ comparator }), ...opts.tools };
  const lean: LeanRunner = opts.lean ?? backend;
  return { backend, cache, search, structural, tools, lean };
}

/**
 * Metrics (src/metrics) and scale-out (src/cluster). With no NATS URL (the default)
 * nothing here touches the network and the NATS client is not even loaded.
 */
async function scaleOut(
  config: Config,
  logger: Logger,
  d: {
    registry: EnvironmentRegistry;
    limiter: ConcurrencyLimiter;
    backend: LeanBackend;
    cache: ResultCache;
    tools: ToolTable;
    lean: LeanRunner;
    search: SearchService;
  },
): Promise<{ metrics: Metrics; cluster: ClusterNode | undefined }> {
  let cluster: ClusterNode | undefined;
  const metrics = new Metrics({
    admission: () => d.limiter.stats(),
    pools: () => d.backend.stats(),
    cache: () => d.cache.stats(),
    queues: () => cluster?.queues() ?? [],
    cluster: () => cluster?.gauges(),
  });
  if (usesNats(config.cluster)) {
    const { ClusterNode } = await import('./cluster/node.ts');
    cluster = await ClusterNode.start({
      config: config.cluster,
      leanLimits: config.lean,
      bodyLimitBytes: config.server.bodyLimitBytes,
      registry: d.registry,
      tools: d.tools,
      lean: d.lean,
      log: logger,
      frontObserver: metrics.front,
      workerObserver: metrics.worker,
      connectionObserver: metrics.connection,
      pools: () => d.backend.stats(),
      search: d.search,
    });
  }
  return { metrics, cluster };
}

/**
 * Who calls: the tools' authorization (401 for a bad key, 503 while shutting down) and the
 * public listings', which need no key even when keys are configured (docs/auth.md). In the
 * handlers rather than an onRequest hook: a global hook costs every request a visible share of throughput
 * on the cache-hit path, which is the hot one.
 */
function authorizers(keys: KeyRing, state: { closing: boolean }, retryAfter: number) {
  const open = (request: FastifyRequest) => {
    if (state.closing) throw serviceError('overloaded', 'shutting_down', { what: 'the daemon' }, { retryAfter });
    return request;
  };
  return {
    authorize: (request: FastifyRequest): Caller =>
      (request.caller = keys.identify(open(request).headers.authorization)),
    authorizeListing: (request: FastifyRequest): Caller =>
      (request.caller = keys.identifyLenient(open(request).headers.authorization)),
  };
}

/** The hit front answers cache hits from now on, recording what fastify's route and hooks record. */
function serveHits(
  front: HitFront,
  d: {
    config: Config;
    logger: Logger;
    cache: ResultCache;
    keys: KeyRing;
    state: { closing: boolean };
    reqIds: ReqIds;
    metrics: Metrics;
    links: SharedLinks;
  },
): void {
  front.serve({
    bodyLimit: d.config.server.bodyLimitBytes,
    cacheStatus: d.config.server.cacheStatus,
    knownBodies: d.config.fastPaths.knownBodies,
    cors: d.config.server.corsOrigins.length ? corsPolicy(d.config.server.corsOrigins) : undefined,
    // Pipeline.lookupRaw's steps, on the bytes rather than their text.
    cache: d.cache,
    // Throws while shutting down or for a bad key: fastify then answers with the envelope.
    identify: (authorization) => {
      if (d.state.closing) throw serviceError('overloaded', 'shutting_down', { what: 'the daemon' });
      return d.keys.identify(authorization);
    },
    reqId: d.reqIds.next,
    answered: hitRecorder({
      line: hitLineWriter(d.logger),
      request: (tool, status, cache, seconds) => d.metrics.request(tool, status, cache, seconds),
      links: d.links,
    }),
    failed: (err) => d.logger.error({ err }, 'the hit front failed after answering or handing over a request'),
  });
}

/** Shutdown (new requests get 503; in-flight ones finish; then cluster, search, Lean, workers) and warm-up. */
function registerLifecycle(
  app: FastifyInstance,
  config: Config,
  state: { closing: boolean },
  d: {
    registry: EnvironmentRegistry;
    cluster: ClusterNode | undefined;
    search: SearchService;
    backend: LeanBackend;
    structural: StructuralPool;
  },
): void {
  app.addHook('preClose', async () => {
    state.closing = true;
  });
  app.addHook('onClose', async () => {
    state.closing = true;
    // In-flight requests have finished (fastify waits for them); now the cluster jobs, then the Lean sessions.
    await d.cluster?.close();
    d.search.close();
    await d.backend.destroy();
    await d.structural.destroy();
  });
  app.addHook('onReady', async () => {
    // Warm the pools of the environments that can run Lean now.
    if (config.lean.minWarm > 0 && config.cluster.role !== 'front')
      for (const name of d.registry.names())
        if (d.registry.availability(name).available) d.backend.pool(d.registry.get(name)!);
  });
}

interface EdgeDeps {
  pipeline: Pipeline;
  links: SharedLinks;
  authorize: (request: FastifyRequest) => Caller;
  closing: () => boolean;
}

/** The OpenAPI docs and the WebSocket channel (with proof search). */
async function registerDocsAndStream(
  app: FastifyInstance,
  config: Config,
  d: EdgeDeps & { search: SearchService; limiter: ConcurrencyLimiter },
): Promise<void> {
  await registerDocs(app, VERSION);
  registerDocPages(app, PROJECT_ROOT);
  await registerStream(app, d.pipeline, {
    links: d.links,
    cacheStatus: config.server.cacheStatus,
    maxPayloadBytes: config.server.bodyLimitBytes,
    authorize: d.authorize,
    limits: config.server.stream,
    closing: d.closing,
    extension: d.search,
    // Search messages that run Lean take the caller's slot like any request (docs/proof-search.md).
    admit: (caller, signal) => d.limiter.acquire(caller, signal),
    // Leave the exit timer (main.ts) time to see the sockets close.
    drainTimeoutMs: Math.max(0, config.server.drainTimeoutMs - 2_000),
  });
}

/** Adapters at the edge: other protocols onto the same pipeline, keys and admission; shared links. */
function registerAdapters(
  app: FastifyInstance,
  config: Config,
  d: EdgeDeps & { authorizeListing: (request: FastifyRequest) => Caller; environments: () => EnvironmentInfo[] },
): void {
  registerMcp(app, {
    authorize: d.authorize,
    pipeline: d.pipeline,
    version: VERSION,
    environments: d.environments,
    limits: config.server.mcp,
    links: d.links,
  });
  registerKimina(app, {
    authorize: d.authorize,
    closing: d.closing,
    pipeline: d.pipeline,
    environment: () => config.server.kimina.environment ?? latestEnvironment(d.environments()),
    maxSnippets: config.server.kimina.maxSnippets,
  });
  registerSharedLinkRoutes(app, d.links, d.authorize);
  registerEndpoints(app, d.authorizeListing);
}
