/**
 * `lean-tool mcp`: MCP over stdio for local clients (Claude Code, Cursor, VS Code…), relayed
 * message for message to a running daemon's `/mcp` (Streamable HTTP) with the official SDK's
 * two transports. A relay rather than a second MCP server in this process: the tools, their
 * schemas, the keys, admission, cache, progress and cancellation are the daemon's, exactly as
 * an HTTP MCP client gets them, and the CLI stays a client that talks HTTP only (it starts no
 * Lean). The daemon must be running (`npm start`); its address is SERVICE_API_URL or --url.
 */
import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  InitializeResultSchema,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { withoutTrailingSlashes } from './client.ts';

export interface McpRelayOptions {
  /** The daemon's base URL (its /mcp is used). */
  url: string;
  apiKey?: string | undefined;
  input?: Readable;
  output?: Writable;
  /** Diagnostics (stderr: stdout carries the protocol). */
  log: (line: string) => void;
}

/** JSON-RPC's "server error" range, for a request the relay could not deliver. */
const UNREACHABLE = -32000;

/** What the client is told when the daemon could not take a message: unreachable, or its refusal. */
function failure(err: unknown, endpoint: URL): string {
  if (err instanceof StreamableHTTPError)
    return `the lean-tool daemon at ${endpoint.href} refused the message (HTTP ${err.code}): ${err.message}`;
  const reason = err instanceof Error ? err.message : String(err);
  return `cannot reach the lean-tool daemon at ${endpoint.href} (${reason}); start it (npm start) or set SERVICE_API_URL / --url`;
}

/**
 * Each message to the other side. Until the initialize is answered the session id is unknown:
 * later messages wait for it (a client normally waits too, but one that pipelines would
 * otherwise reach the daemon sessionless).
 */
function relay(
  local: StdioServerTransport,
  remote: StreamableHTTPClientTransport,
  endpoint: URL,
  log: (line: string) => void,
): void {
  let initialized: Promise<void> = Promise.resolve();
  const pendingInit = new Map<string | number, () => void>();
  const deliver = async (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') {
      initialized = new Promise((resolve) => pendingInit.set(message.id, resolve));
      return remote.send(message);
    }
    await initialized;
    return remote.send(message);
  };
  local.onmessage = (message: JSONRPCMessage) => {
    deliver(message).catch((err: unknown) => {
      log(`lean-tool mcp: ${failure(err, endpoint)}`);
      if (isJSONRPCRequest(message)) {
        pendingInit.get(message.id)?.();
        // A request must be answered, or the client waits for ever; a notification has no answer.
        void local.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: UNREACHABLE, message: failure(err, endpoint) },
        });
      }
    });
  };
  remote.onmessage = (message: JSONRPCMessage) => {
    const answered =
      (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined
        ? pendingInit.get(message.id)
        : undefined;
    // The transport sends the negotiated protocol version on every later request (MCP-Protocol-Version).
    if (answered && isJSONRPCResultResponse(message)) {
      const init = InitializeResultSchema.safeParse(message.result);
      if (init.success) remote.setProtocolVersion(init.data.protocolVersion);
    }
    void local.send(message).then(answered);
  };
}

/** Relays until the local side closes its input; resolves with the exit code. */
export async function serveMcpStdio(opts: McpRelayOptions): Promise<number> {
  const endpoint = new URL('/mcp', `${withoutTrailingSlashes(opts.url)}/`);
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {} },
  });
  const local = new StdioServerTransport(opts.input, opts.output);

  relay(local, remote, endpoint, opts.log);
  remote.onerror = (err) => opts.log(`lean-tool mcp: ${err.message}`);
  local.onerror = (err) => opts.log(`lean-tool mcp: stdin: ${err.message}`);

  const closed = new Promise<void>((resolve) => {
    local.onclose = resolve;
    // StdioServerTransport ends on its input's end only through close(); watch the stream itself.
    (opts.input ?? process.stdin).once('end', () => void local.close());
  });
  await remote.start();
  await local.start();
  opts.log(`lean-tool mcp: relaying stdio to ${endpoint.href}`);
  await closed;
  // Free the daemon's session at once rather than at its idle timeout.
  await remote.terminateSession().catch(() => {});
  await remote.close();
  return 0;
}
