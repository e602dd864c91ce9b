/** HTTP routes: tools (current and earlier path form), environments, status; the methods each path allows. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isToolName, type ToolName } from '../contract/tools.ts';
import { unknownTool } from '../contract/validate.ts';
import type { Caller } from '../admission/keys.ts';
import type { OwnController } from '../admission/request-timeout.ts';
import { clip, serviceError } from '../errors.ts';
import { sendError } from './error-handler.ts';
import type { Pipeline, Prepared, RunInfo } from './pipeline.ts';
import type { RawKey } from '../cache/result-cache.ts';
import { newRequestId, withRequestId } from './request-id.ts';
import { responseText } from './response-text.ts';
import { RequestAbortController } from '../util/request-abort.ts';
import type { SharedLinks } from './shared-links.ts';
import { DeferredBody } from './deferred-body.ts';

declare module 'fastify' {
  interface FastifyRequest {
    svc: RunInfo & { tool?: string; requestId?: string };
    /** The body as received, for the byte-identical cache fast path. */
    rawBody: string | undefined;
  }
}

export interface RouteDeps {
  /** Identifies the caller (401 for a bad key, 503 while shutting down). */
  authorize: (request: FastifyRequest) => Caller;
  /** The same for the public listings, which need no key (an unknown one is read as anonymous). */
  authorizeListing?: (request: FastifyRequest) => Caller;
  /** True once shutdown began: responses then close their connection, so the drain ends when the work does. */
  closing: () => boolean;
  pipeline: Pipeline;
  version: string;
  environments: () => unknown[];
  status: () => Record<string, unknown>;
  /** Answered requests remembered for `POST /v1/shared-links` (absent: none). */
  links?: SharedLinks;
  /** `x-cache: hit|miss` on tool responses (config server.cacheStatus; off: no header). */
  cacheStatus?: boolean;
  /** The light controller per request (config fastPaths.lightAbortController; default true); false: Node's. */
  lightAbortController?: boolean;
}

/**
 * Aborts when the client disconnects before its response is written. The same controller is the
 * request's deadline (RunOptions.controller): one controller per request, a light one
 * (src/util/request-abort.ts says why Node's own is not).
 */
function clientGoneController(reply: FastifyReply, light: boolean): OwnController {
  // Off (config fastPaths.lightAbortController): Node's own, the plain path.
  const ctrl = light ? new RequestAbortController() : new AbortController();
  // A response emits 'close' once: `on`, not `once`, whose wrapper is two more objects per request.
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) ctrl.abort(serviceError('cancelled', 'client_disconnected'));
  });
  return ctrl;
}

/** What a tool request's answer is remembered with for shared links. */
interface Answering {
  tool: string;
  requestId: string;
  raw: string | undefined;
  links: SharedLinks | undefined;
  cacheStatus: boolean;
}

/** A cached result: its stored bytes with this request's id spliced in. */
function sendHit(a: Answering, stored: Buffer, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.svc.cache = 'hit';
  a.links?.record(a.requestId, {
    tool: a.tool,
    caller: request.caller,
    inputs: a.raw ?? (request.body as object),
    result: stored,
    withoutId: true,
  });
  if (a.cacheStatus) reply.header('x-cache', 'hit');
  return reply.type('application/json; charset=utf-8').send(withRequestId(stored, a.requestId));
}

/** A miss: the tool runs (admission, deadline, Lean), then its result is sent with this request's id. */
async function runMiss(
  deps: RouteDeps,
  a: Answering,
  prepared: Prepared<ToolName>,
  rawKey: RawKey | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  gone: OwnController,
): Promise<unknown> {
  const result = await deps.pipeline.execute(
    prepared,
    {
      caller: request.caller,
      log: request.log,
      signal: gone.signal,
      controller: gone,
      info: request.svc,
      inputChars: a.raw?.length,
      clientAddress: request.ip,
    },
    rawKey,
  );
  if (request.svc.deadlineSeconds !== undefined)
    reply.header('x-deadline-seconds', String(request.svc.deadlineSeconds));
  // 'hit' here: a shared (cluster) cache answered after the local one missed.
  if (a.cacheStatus) reply.header('x-cache', request.svc.cache === 'hit' ? 'hit' : 'miss');
  if (deps.closing()) reply.header('connection', 'close');
  // One text, sent and remembered for sharing, made from the cache's when the run stored one.
  const text = responseText(result, a.requestId, request.svc.stored, request.svc.provenance);
  a.links?.record(a.requestId, {
    tool: a.tool,
    caller: request.caller,
    inputs: a.raw ?? (request.body as object),
    result: text,
  });
  return reply.type('application/json; charset=utf-8').send(text);
}

/** The tool routes' handler: authorize, then a cached answer or a run. */
function toolRunner(deps: RouteDeps) {
  const links = deps.links?.enabled ? deps.links : undefined;
  const cacheStatus = deps.cacheStatus === true;
  const light = deps.lightAbortController !== false;
  return async (tool: string, request: FastifyRequest, reply: FastifyReply) => {
    const requestId = newRequestId();
    request.svc = { tool, requestId };
    deps.authorize(request);
    if (!isToolName(tool)) throw unknownTool(tool);
    const raw = request.rawBody;
    // No body at all (fastify parses none without a Content-Type): the same answer as an empty JSON body.
    if (request.body === undefined || raw === '') throw serviceError('malformed_json', 'empty_body');
    // Hot path: a byte-identical body whose result is cached is sent as stored JSON (looked up
    // while the body was read, src/server/hit-path.ts; its JSON was then not parsed).
    const r = request.rawLookup ?? (raw !== undefined ? deps.pipeline.lookupRaw(tool, raw) : undefined);
    const a = { tool, requestId, raw, links, cacheStatus };
    if (r?.hit) return sendHit(a, r.hit.body, request, reply);
    // A large body left unparsed is validated on a worker thread (deferred-body.ts), abortable from the start.
    const gone = request.body instanceof DeferredBody ? clientGoneController(reply, light) : undefined;
    const prepared = gone
      ? await deps.pipeline.prepareDeferred(tool, request.body as DeferredBody, request.svc, r?.rawKey, {
          caller: request.caller,
          clientAddress: request.ip,
          signal: gone.signal,
        })
      : deps.pipeline.prepare(tool, request.body, request.svc, r?.rawKey);
    if ('hit' in prepared) return sendHit(a, prepared.hit.body, request, reply);
    return runMiss(deps, a, prepared.miss, r?.rawKey, request, reply, gone ?? clientGoneController(reply, light));
  };
}

export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const runTool = toolRunner(deps);
  // A body the hit front already read is taken by the body parser with its lookup (src/server/body.ts).
  // A large body to a tool route may reach the handler unparsed, for a worker thread (deferred-body.ts).
  const config = { deferLargeBody: true };
  app.post<{ Params: { tool: string } }>('/api/v1/:tool', { config }, (req, reply) =>
    runTool(req.params.tool, req, reply),
  );
  // The spec's earlier path form, /v1/<service_name>/<tool_name>; the service segment is not interpreted.
  app.post<{ Params: { service: string; tool: string } }>('/v1/:service/:tool', { config }, (req, reply) =>
    runTool(req.params.tool, req, reply),
  );

  const listing = deps.authorizeListing ?? deps.authorize;
  app.get('/v1/environments', async (request) => {
    listing(request);
    return deps.environments();
  });
  app.get('/v1/status', async (request) => {
    listing(request);
    return deps.status();
  });
}

/**
 * The routes' methods by path pattern, for answering a known path with the wrong method
 * (405 with `Allow`, RFC 9110 §15.5.6) instead of 404. GET routes also answer HEAD (fastify's
 * exposeHeadRoutes).
 */
const ROUTES: [RegExp, string[]][] = [
  [/^\/api\/v1\/[^/]+$/, ['POST']],
  [/^\/v1\/(environments|status|stream|endpoints)$/, ['GET', 'HEAD']],
  [/^\/v1\/shared-links$/, ['POST']],
  [/^\/v1\/shared-links\/[^/]+$/, ['GET', 'HEAD']],
  [/^\/v1\/[^/]+\/[^/]+$/, ['POST']],
  [/^\/(docs(\/.*)?)?$/, ['GET', 'HEAD']],
  [/^\/mcp$/, ['GET', 'POST', 'DELETE']],
  [/^\/(api\/check\/?|verify|one_pass_verify_batch)$/, ['POST']],
  [/^\/health\/?$/, ['GET', 'HEAD']],
];

/**
 * Requests no route takes: a 405 naming the allowed methods when the path exists (with an
 * `Allow` header), else a 404; both in the error envelope.
 */
export function registerNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const path = clip(request.url.split('?')[0]!);
    const allow = allowedMethods(path);
    if (allow.length > 0) {
      reply.header('allow', allow.join(', '));
      return sendError(
        serviceError('method_not_allowed', 'method', {
          method: request.method,
          path,
          allowed: allow.filter((m) => m !== 'HEAD').join(' or '),
        }),
        request,
        reply,
      );
    }
    return sendError(serviceError('not_found', 'route', { method: request.method, path }), request, reply);
  });
}

/** The methods a path answers to, or [] when no route has that path. */
export function allowedMethods(url: string): string[] {
  const path = url.split('?')[0]!;
  return ROUTES.find(([re]) => re.test(path))?.[1] ?? [];
}
