/**
 * `POST/GET/DELETE /mcp`: the Model Context Protocol over Streamable HTTP (MCP 2025-03-26 and
 * later), served by the official TypeScript SDK's transport on the raw request and response
 * (fastify hands them over with `reply.hijack()`). The key check is the HTTP routes' own
 * (`authorize`: 401, and 503 while shutting down, in the service's error envelope, before the
 * SDK sees anything); each tool call is then admitted under that caller (mcp-server.ts).
 * Session errors are JSON-RPC errors, as the SDK's transport answers them, so MCP clients
 * recognise a lost session (404) and start a new one.
 */
import type { EnvironmentInfo } from '../../contract/common.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { callerShare, type Caller } from '../../admission/keys.ts';
import type { Pipeline } from '../pipeline.ts';
import type { SharedLinks } from '../shared-links.ts';
import { createMcpServer } from './mcp-server.ts';
import { McpSessions, type McpSession, type McpSessionLimits } from './mcp-sessions.ts';
import { mcpToolList, toolError } from './mcp-tools.ts';
import { screenMcpBody, type Screened } from './mcp-limits.ts';
import type { ServiceError } from '../../errors.ts';

export interface McpDeps {
  authorize: (request: FastifyRequest) => Caller;
  pipeline: Pipeline;
  version: string;
  environments: () => EnvironmentInfo[];
  limits: McpSessionLimits & { progressIntervalMs: number };
  links?: SharedLinks;
}

/** The /mcp route's handler and its sessions (mcp.ts loads this module on the first request). */
export interface McpEndpoint {
  handle: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  sessions: McpSessions;
}

/** A JSON-RPC error without a request id (the transport's own form for session errors). */
function rpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * A `tools/call` over the input limits, answered here as the SDK would answer the tool error
 * (a JSON-RPC result, `isError`, HTTP's envelope) without the SDK reading its arguments.
 */
function answerRefusedCall(
  request: FastifyRequest,
  reply: FastifyReply,
  call: { id: string | number; tool: string; error: ServiceError },
  caller: Caller,
): FastifyReply {
  request.log.info(
    { tool: call.tool, keyClass: caller.keyClass, status: call.error.status, mcp: true },
    'mcp tool call refused by the input limits',
  );
  return reply
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', id: call.id, result: toolError(call.error) });
}

export function createMcpEndpoint(deps: McpDeps): McpEndpoint {
  const sessions = new McpSessions(deps.limits);
  // Converting every zod schema costs milliseconds: once, on the first session.
  let tools: ReturnType<typeof mcpToolList> | undefined;
  const serverDeps = () => ({
    pipeline: deps.pipeline,
    tools: (tools ??= mcpToolList()),
    version: deps.version,
    environments: deps.environments,
    progressIntervalMs: deps.limits.progressIntervalMs,
    links: deps.links,
  });

  /** The SDK answers on the raw response from here on; a failure it leaves unanswered gets a 500. */
  const handOver = async (session: McpSession, request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    try {
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (err) {
      request.log.error({ err }, 'mcp transport failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
      } else reply.raw.end();
    }
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = deps.authorize(request);
    // Sessions are owned and counted per share: anonymous callers apart by address.
    const owner = callerShare(caller, request.ip);
    // Before the SDK parses anything: HTTP's limits (mcp-limits.ts).
    const screened: Screened = screenMcpBody(request.body, (args) => deps.pipeline.checkLimits(args));
    if (screened && 'invalid' in screened) return rpcError(reply, 400, -32602, `Invalid params: ${screened.invalid}`);
    const sid = request.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const session = sessions.get(sid, owner);
      // Closed, expired, evicted or another caller's: the client is to initialize again (spec: 404).
      if (!session) return rpcError(reply, 404, -32001, 'Session not found');
      if (screened) return answerRefusedCall(request, reply, screened.call, caller);
      return handOver(session, request, reply);
    }
    if (request.method !== 'POST' || screened || !isInitializeRequest(request.body))
      return rpcError(reply, 400, -32000, 'Bad Request: no Mcp-Session-Id header; send an initialize request first');
    const log = request.log.child({ mcp: true });
    const { session, settle } = await sessions.create(owner, (busy) =>
      createMcpServer(serverDeps(), { caller, log, busy }),
    );
    try {
      await handOver(session, request, reply);
    } finally {
      settle();
    }
  };

  return { handle, sessions };
}
