/**
 * The MCP endpoint `/mcp` (Streamable HTTP, the official SDK; docs/mcp.md). The SDK and the
 * tool schemas load on the first request to /mcp, not at startup: a daemon nobody reaches over
 * MCP does not pay their module loading (sdk/server/mcp.js most of it, streamableHttp.js the
 * rest) nor their memory.
 */
import type { FastifyInstance } from 'fastify';
import type { McpDeps, McpEndpoint } from './mcp-endpoint.ts';

export type { McpDeps };

export const MCP_PATH = '/mcp';

export function registerMcp(app: FastifyInstance, deps: McpDeps): void {
  let loading: Promise<McpEndpoint> | undefined;
  const endpoint = () => (loading ??= import('./mcp-endpoint.ts').then((m) => m.createMcpEndpoint(deps)));
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    handler: async (request, reply) => (await endpoint()).handle(request, reply),
  });
  // Shutdown: the open GET streams end at once (they would hold the server open); tool calls in
  // flight finish on their own POST streams, then every session closes.
  app.addHook('preClose', async () => (loading ? (await loading).sessions.closeStreams() : undefined));
  app.addHook('onClose', async () => (loading ? (await loading).sessions.closeAll() : undefined));
}
