/**
 * Cache hits answered in front of fastify. A bare fastify route costs more than Node's own HTTP
 * server per request (request and reply objects, routing, hook runners, the content-type
 * parser, a child logger per request in the daemon): more than everything a hit itself does.
 * So the daemon's HTTP server (fastify's `serverFactory`) looks at each request first: a
 * `POST` to a tool route with a plain body is read here, its raw bytes hashed and looked up
 * (as src/server/hit-path.ts does inside fastify), and a hit from an authorized caller is
 * answered at once, keeping everything the route and hooks do for a hit: the `x-cache: hit`
 * response with its `info.request_id`, the request log line, the metrics, the shared-links
 * record. Everything else (a miss, a bad key, shutdown, any other route or an unusual
 * request) goes to fastify unchanged; a body already read is handed over with its lookup, so
 * a miss is hashed once (`preReadBody`, read by the body parser).
 *
 * `app.inject` calls fastify's handler directly, not through this server: tests through
 * `inject` take fastify's own hit path, which answers the same bytes.
 *
 * Fast path (config fastPaths.hitFront; off: fastify's route answers every hit, the same bytes).
 * Retire when: `node --import tsx bench/fast-paths.ts hits` measures the daemon with
 * fastPaths.hitFront off meeting the hit-path target against the bare fastify route (the target
 * this front exists for, docs/benchmarks.md), e.g. after a fastify major; or re-check by 2027-05-31.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Caller } from '../admission/keys.ts';
import { KnownBodies } from '../cache/known-bodies.ts';
import { inlineBodyText, type CachedResult, type ResultCache } from '../cache/result-cache.ts';
import type { RawLookup } from './hit-path.ts';
import { newRequestId, requestIdParts } from './request-id.ts';
import type { HitLine } from './request-log.ts';
import type { SharedLinks } from './shared-links.ts';
import { corsHeaders, type CorsPolicy } from './cors.ts';

/** A hit answered here: what the route and the onResponse hooks record for one. */
export interface FrontHit {
  reqId: string;
  requestId: string;
  url: string;
  tool: string;
  caller: Caller;
  /** The body as received (one string for every repeat of a known body). */
  raw: string;
  /** The stored bytes sent (without the request id). */
  stored: Buffer;
  /** Milliseconds from the request's arrival to its answer. */
  elapsedMs: number;
}

export interface HitFrontDeps {
  bodyLimit: number;
  /** `x-cache: hit` on the answer (config server.cacheStatus), as the route sends it. */
  cacheStatus: boolean;
  /** Repeated bodies known by their bytes (config fastPaths.knownBodies); false: every body's raw key is made. */
  knownBodies?: boolean;
  /** The CORS policy fastify's hook applies (src/server/cors.ts); undefined when CORS is off. */
  cors?: CorsPolicy | undefined;
  /** The raw-body lookup (as Pipeline.lookupRaw does it), on the bytes as received. */
  cache: Pick<ResultCache, 'rawKey' | 'getRaw'>;
  /** The caller (throws for a bad key or while shutting down: fastify then answers with the envelope). */
  identify: (authorization: string | undefined) => Caller;
  /** fastify's request id generator (the log line's `reqId`). */
  reqId: () => string;
  /** Records an answered hit (log line, metrics, shared links). */
  answered: (hit: FrontHit) => void;
  /** Reports an error raised after a hit was answered (recording it) or a request handed to fastify. */
  failed: (err: unknown) => void;
}

/** A body the front read before handing the request to fastify. */
export interface PreRead {
  chunks: Buffer[];
  /** The body's text when the front has it already (an ASCII body's inline raw key: inlineBodyText). */
  text?: string | undefined;
  error: Error | undefined;
  lookup: RawLookup | undefined;
}

const PRE_READ = Symbol('lean-tool.preRead');
type WithPreRead = IncomingMessage & { [PRE_READ]?: PreRead };

/** `/api/v1/<tool>` and `/v1/<service>/<tool>` with a plain tool name and no query: the tool routes' paths. */
export const TOOL_PATH = /^\/(?:api\/v1|v1\/[A-Za-z0-9_.-]+)\/([a-z0-9_]+)$/;
/** Media types fastify reads as valid (others, even when accepted, take fastify's path and its answer). */
const PLAIN_TYPE = /^(?:application\/json|text\/plain|application\/x-www-form-urlencoded)(?:; ?charset=utf-8)?$/i;

const API_PREFIX = '/api/v1/';

/** Whether `url` from `from` on is a plain tool name (`[a-z0-9_]+`, as TOOL_PATH's last part). */
function toolNameFrom(url: string, from: number): boolean {
  if (from >= url.length) return false;
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f)) return false;
  }
  return true;
}

/**
 * The tool of a tool path, or undefined. The usual form (`/api/v1/<tool>`) and the usual type
 * are read without a regular expression: the two RegExp executions were visible in every request
 * of the daemon's perf profile (cold: a request runs between other processes).
 */
export function toolOf(url: string): string | undefined {
  if (url.startsWith(API_PREFIX))
    return toolNameFrom(url, API_PREFIX.length) ? url.slice(API_PREFIX.length) : undefined;
  return TOOL_PATH.exec(url)?.[1];
}

/** The tool a request may be a hit for, or undefined when fastify must see it as it came. */
function candidateTool(req: IncomingMessage, bodyLimit: number): string | undefined {
  if (req.method !== 'POST') return undefined;
  const tool = toolOf(req.url ?? '');
  if (tool === undefined) return undefined;
  const h = req.headers;
  const type = h['content-type'];
  if (type !== undefined && type !== 'application/json' && !PLAIN_TYPE.test(type)) return undefined;
  const length = Number(h['content-length']);
  if (!(length > 0 && length <= bodyLimit) || h['transfer-encoding'] !== undefined) return undefined;
  return tool;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The response headers of a hit, as fastify's route sends them (same names, order and values:
 * the CORS headers first, set by fastify's onRequest hook before the route's own).
 */
const hitHeaders = (length: number, cacheStatus: boolean, extra: readonly string[]) => {
  const base = cacheStatus
    ? ['x-cache', 'hit', 'content-type', 'application/json; charset=utf-8', 'content-length', String(length)]
    : ['content-type', 'application/json; charset=utf-8', 'content-length', String(length)];
  return extra.length ? [...extra, ...base] : base;
};

const NO_HEADERS: readonly string[] = [];

/** The dependencies and the front's own memory of bodies answered as hits (none when switched off). */
interface Serving extends HitFrontDeps {
  bodies: KnownBodies | undefined;
}

export class HitFront {
  #deps: Serving | undefined;

  /** Starts answering hits (until then every request goes to fastify). */
  serve(deps: HitFrontDeps): void {
    this.#deps = { ...deps, bodies: deps.knownBodies === false ? undefined : new KnownBodies() };
  }

  /**
   * fastify's `serverFactory`: the HTTP server fastify would create (its timeouts set as
   * fastify sets them, lib/server.js), with this front before fastify's handler.
   */
  readonly serverFactory = (handler: Handler, opts: Record<string, unknown>): http.Server => {
    const server = http.createServer((opts.http ?? {}) as http.ServerOptions, (req, res) =>
      this.#handle(req, res, handler),
    );
    server.keepAliveTimeout = opts.keepAliveTimeout as number;
    server.requestTimeout = opts.requestTimeout as number;
    server.setTimeout(opts.connectionTimeout as number);
    if ((opts.maxRequestsPerSocket as number) > 0) server.maxRequestsPerSocket = opts.maxRequestsPerSocket as number;
    return server;
  };

  #handle(req: IncomingMessage, res: ServerResponse, next: Handler): void {
    const deps = this.#deps;
    const tool = deps && candidateTool(req, deps.bodyLimit);
    if (!deps || tool === undefined) return next(req, res);
    // One object per request and listeners shared by all (`this` is the request): no closures.
    (req as Reading)[READING] = {
      deps,
      tool,
      res,
      next,
      start: performance.now(),
      chunks: [],
      error: undefined,
      lookup: undefined,
      text: undefined,
      done: false,
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  }
}

/** A request body being read by the front. */
interface ReadState extends PreRead {
  deps: Serving;
  tool: string;
  res: ServerResponse;
  next: Handler;
  start: number;
  /** Ended or failed: later events are not the front's. */
  done: boolean;
}

const READING = Symbol('lean-tool.hitFrontReading');
type Reading = IncomingMessage & { [READING]?: ReadState };

function onData(this: Reading, chunk: Buffer): void {
  this[READING]!.chunks.push(chunk);
}

function onError(this: Reading, err: Error): void {
  const r = this[READING]!;
  if (r.done) return;
  r.done = true;
  r.error = err;
  handOff(this, r);
}

function onEnd(this: Reading): void {
  const r = this[READING]!;
  if (r.done) return;
  r.done = true;
  try {
    answer(this, r);
  } catch (e) {
    // Nothing here may end the process: before an answer or a hand-off, fastify takes the request;
    // after, what was thrown is only reported (a miss runs in fastify up to its first await inside
    // `handOff`: handing it over again would run it twice).
    if (!r.res.headersSent && (this as WithPreRead)[PRE_READ] === undefined) handOff(this, r);
    else r.deps.failed(e);
  }
}

function answer(req: IncomingMessage, r: ReadState): void {
  const { deps, chunks } = r;
  // The bytes are looked up as they came: a body answered before is found by its bytes
  // (KnownBodies), another one hashed; no string of the body unless it is a hit (shared links keep it).
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  // Joined once: a miss's body parser (src/server/body.ts) takes these bytes, not the pieces again.
  if (chunks.length > 1) r.chunks = [bytes];
  const known = deps.bodies?.find(r.tool, bytes);
  const rawKey = known ? known.rawKey : deps.cache.rawKey(r.tool, bytes);
  const hit = deps.cache.getRaw(rawKey);
  r.lookup = { hit, rawKey };
  const caller = hit && callerOf(deps, req);
  if (!hit || !caller) {
    // The body parser's text for a miss: the key's own characters where they are the body's.
    if (!known) r.text = inlineBodyText(rawKey, r.tool, bytes);
    return handOff(req, r);
  }
  const reqId = deps.reqId();
  const requestId = newRequestId();
  // The same CORS headers as fastify's hook (src/server/cors.ts) sets on the route's answer.
  const cors = deps.cors ? corsHeaders(deps.cors, req.headers.origin) : NO_HEADERS;
  sendHit(r.res, hit, requestId, deps.cacheStatus, cors);
  const body = known ?? deps.bodies?.remember(r.tool, bytes, rawKey) ?? { tool: r.tool, text: bytes.toString('utf8') };
  deps.answered({
    reqId,
    requestId,
    url: req.url!,
    tool: body.tool,
    caller,
    raw: body.text,
    stored: hit.body,
    elapsedMs: performance.now() - r.start,
  });
}

function callerOf(deps: HitFrontDeps, req: IncomingMessage): Caller | undefined {
  try {
    return deps.identify(req.headers.authorization);
  } catch {
    return undefined;
  }
}

/**
 * The stored bytes up to their closing brace (a view: no copy of the body) and the request id's
 * member, written as one `writev` with the headers: the socket is corked before the first write
 * and `end` uncorks it. Copying the body into one buffer per hit (2.7 kB in the bench) cost
 * measurable CPU a hit (A B interleaved), mostly Node's 8 KiB buffer pool
 * turning over every two or three responses.
 */
function sendHit(
  res: ServerResponse,
  hit: CachedResult,
  requestId: string,
  cacheStatus: boolean,
  extra: readonly string[],
): void {
  const [head, tail] = requestIdParts(hit.body, requestId);
  res.writeHead(200, hitHeaders(head.length + tail.length, cacheStatus, extra));
  // Corked here, `write` does not cork it and schedule the uncork on a tick of its own.
  const socket = res.socket;
  socket?.cork();
  try {
    res.write(head);
  } catch (e) {
    // `end` uncorks; without it the connection's later responses would wait for ever.
    socket?.uncork();
    throw e;
  }
  res.end(tail);
}

function handOff(req: IncomingMessage, r: ReadState): void {
  (req as WithPreRead)[PRE_READ] = r;
  r.next(req, r.res);
}

/**
 * The body the front already read and its lookup, for the body parser (src/server/body.ts),
 * which takes the chunks as they are instead of reading the request again.
 */
export function preReadBody(req: IncomingMessage): PreRead | undefined {
  return (req as WithPreRead)[PRE_READ];
}

export interface HitRecorders {
  /** The request log line (absent when info is off). */
  line: ((h: HitLine) => void) | undefined;
  /** The per-request metrics (Metrics.request). */
  request: (tool: string, status: number, cache: string, seconds: number) => void;
  /** Answered requests remembered for shared links (absent when disabled). */
  links: SharedLinks | undefined;
}

/**
 * What a hit answered by the front records: the same log line members, metrics and
 * shared-links record as fastify's route and onResponse hooks (src/server/routes.ts,
 * request-log.ts, src/metrics/http.ts) for a hit: no environment, no queue time.
 */
export function hitRecorder(r: HitRecorders): (hit: FrontHit) => void {
  return (hit) => {
    r.links?.record(hit.requestId, {
      tool: hit.tool,
      caller: hit.caller,
      inputs: hit.raw,
      result: hit.stored,
      withoutId: true,
    });
    r.request(hit.tool, 200, 'hit', hit.elapsedMs / 1000);
    r.line?.({
      reqId: hit.reqId,
      requestId: hit.requestId,
      url: hit.url,
      tool: hit.tool,
      keyClass: hit.caller.keyClass,
      totalMs: Math.round(hit.elapsedMs),
    });
  };
}
