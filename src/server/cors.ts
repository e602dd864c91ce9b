/**
 * Cross-origin requests, as AXLE allows them since v1.4.0 (CHANGELOG: "`OPTIONS` preflights return `204`
 * with `Access-Control-Allow-*` headers, and every `/api/v1/` response carries
 * `Access-Control-Allow-Origin`"), so a browser page can call the daemon. The origins allowed are
 * `server.corsOrigins`: `["*"]` (the default, any origin, as AXLE's public API) or a list of exact
 * origins (`https://app.example`), echoed back with `Vary: Origin`; `[]` turns CORS off.
 *
 * One policy for both ways a response leaves the daemon: fastify's hook (every route, errors included,
 * and the preflight) and the hit front (src/server/hit-front.ts), which answers cache hits before fastify
 * and so before any fastify plugin. That is why this is not @fastify/cors: its decision cannot be asked
 * from the front, and two implementations of one policy would drift.
 */
import type { FastifyInstance } from 'fastify';

/** Methods the routes take (tools POST; status, docs GET; MCP sessions DELETE). */
const ALLOW_METHODS = 'GET, POST, DELETE, OPTIONS';
/** Request headers a page may send when the preflight names none. */
const ALLOW_HEADERS = 'authorization, content-type, x-request-source, mcp-session-id, mcp-protocol-version';
/** Response headers a page may read: the ones the docs tell clients to read. */
const EXPOSE_HEADERS = 'x-cache, x-deadline-seconds, x-error-code, retry-after, mcp-session-id';
/** A day: browsers cap it lower anyway (Chromium at two hours). */
const MAX_AGE_SECONDS = '86400';
/** An Access-Control-Request-Headers value echoed back is bounded (it is the caller's text). */
const REQUEST_HEADERS_CHARS = 1000;

export interface CorsPolicy {
  /** The Access-Control-Allow-Origin for a request from `origin`, undefined when none is allowed. */
  allowOrigin(origin: string | undefined): string | undefined;
  /** Whether the answer depends on the Origin header (an origin list, not `*`): then `Vary: Origin`. */
  readonly varies: boolean;
}

export function corsPolicy(origins: readonly string[]): CorsPolicy {
  if (origins.includes('*')) return { allowOrigin: () => '*', varies: false };
  const allowed = new Set(origins);
  return {
    allowOrigin: (origin) => (origin !== undefined && allowed.has(origin) ? origin : undefined),
    varies: allowed.size > 0,
  };
}

/** The CORS headers of an ordinary (not preflight) response, as `[name, value, …]` (the hit front's writeHead form). */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): string[] {
  const allow = policy.allowOrigin(origin);
  const vary = policy.varies ? ['vary', 'Origin'] : [];
  return allow === undefined
    ? vary
    : ['access-control-allow-origin', allow, 'access-control-expose-headers', EXPOSE_HEADERS, ...vary];
}

/** Every response gets its CORS headers; a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 here. */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const policy = corsPolicy(origins);
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    const h = corsHeaders(policy, origin);
    for (let i = 0; i < h.length; i += 2) reply.header(h[i]!, h[i + 1]!);
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return done();
    if (policy.allowOrigin(origin) !== undefined) {
      const asked = request.headers['access-control-request-headers'];
      reply
        .header('access-control-allow-methods', ALLOW_METHODS)
        .header('access-control-allow-headers', asked ? String(asked).slice(0, REQUEST_HEADERS_CHARS) : ALLOW_HEADERS)
        .header('access-control-max-age', MAX_AGE_SECONDS);
    }
    // A refused origin gets the 204 without Allow-* headers: the browser then refuses the request itself.
    reply.code(204).send();
  });
}
