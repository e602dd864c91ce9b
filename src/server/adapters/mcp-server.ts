/**
 * One MCP server (the official SDK's McpServer) per session: `tools/list` answers the tool
 * list derived from the contract, `tools/call` goes through the same pipeline as
 * `POST /api/v1/<tool>` (validation, cache, admission under the session's caller, deadline),
 * and the environments are a resource. The SDK's own per-tool registration (`registerTool`)
 * is not used: it validates arguments with its own messages before the handler runs, and the
 * point of this adapter is that a call is refused exactly as the HTTP route refuses it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../admission/keys.ts';
import type { EnvironmentInfo } from '../../contract/common.ts';
import { latestEnvironment } from '../../envs/latest.ts';
import { isToolName, TOOL_NAMES } from '../../contract/tools.ts';
import { clip, serviceError } from '../../errors.ts';
import type { Log } from '../../log.ts';
import { toServiceError } from '../error-handler.ts';
import type { Pipeline, RunInfo } from '../pipeline.ts';
import { attachRequestId, newRequestId } from '../request-id.ts';
import type { SharedLinks } from '../shared-links.ts';
import { ENVIRONMENTS_TOOL, ENVIRONMENTS_URI, toolError, toolResult } from './mcp-tools.ts';

export interface McpServerDeps {
  pipeline: Pipeline;
  tools: Tool[];
  version: string;
  environments: () => EnvironmentInfo[];
  /** Answered calls are remembered for `POST /v1/shared-links` as HTTP ones are (absent or disabled: not). */
  links?: SharedLinks | undefined;
  /** At most one progress notification per this many ms (the last word of a stage always goes). */
  progressIntervalMs: number;
}

/** What one session's server knows of its HTTP side: who called, where to log, and how busy it is. */
export interface McpSessionContext {
  caller: Caller;
  log: Log;
  /** Called when a tool call starts and ends (an idle session is one with no call running). */
  busy: (delta: 1 | -1) => void;
}

const INSTRUCTIONS =
  'Lean 4 proof tooling: check, verify, repair, transform and analyse Lean source. Read the resource ' +
  `${ENVIRONMENTS_URI} or call ${ENVIRONMENTS_TOOL} for the environment names (and whether each can run Lean now); ` +
  'every tool takes `content` (Lean source) and `environment`, which defaults to the newest available `lean-4.x.y`.';

type Notify = (n: ServerNotification) => Promise<void>;

/**
 * The pipeline's progress events as MCP progress notifications (2025-03-26 "Progress"): the
 * `progress` value must increase with each notification, so it counts the events; the stage and
 * its done/total go in `message`.
 */
function progressReporter(token: string | number, notify: Notify, intervalMs: number) {
  let sent = 0;
  let last = 0;
  const send = (message: string) => {
    last = performance.now();
    void notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++sent, message } })
      // A client that went away while the tool runs: the abort signal handles it, not the notification.
      .catch(() => {});
  };
  return {
    started: () => send('started'),
    progress: (p: { stage: string; done?: number; total?: number }) => {
      const finished = p.done !== undefined && p.done === p.total;
      if (!finished && performance.now() - last < intervalMs) return;
      send(p.done !== undefined ? `${p.stage} ${p.done}/${p.total ?? '?'}` : p.stage);
    },
  };
}

export function createMcpServer(deps: McpServerDeps, session: McpSessionContext): McpServer {
  const mcp = new McpServer(
    { name: 'lean-tool', version: deps.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  mcp.registerResource(
    'environments',
    ENVIRONMENTS_URI,
    {
      title: 'Lean environments',
      description:
        'The Lean environments of this service (as GET /v1/environments): name, toolchain, imports, and whether each can run Lean now.',
      mimeType: 'application/json',
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(deps.environments()) }],
    }),
  );
  // McpServer installs its tool handlers only for tools registered with it; these are ours.
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: deps.tools }));
  mcp.server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(deps, session, request, extra));
  return mcp;
}

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The pipeline sees the service's own reason (as on HTTP and the stream), not the client's text. */
function cancellation(extra: CallExtra): { signal: AbortSignal; dispose: () => void } {
  const cancel = new AbortController();
  const onCancel = () => cancel.abort(serviceError('cancelled', 'by_client'));
  if (extra.signal.aborted) onCancel();
  else extra.signal.addEventListener('abort', onCancel, { once: true });
  return { signal: cancel.signal, dispose: () => extra.signal.removeEventListener('abort', onCancel) };
}

/** `tools/call`: through the pipeline as `POST /api/v1/<tool>`, its answer or its refusal as a tool result. */
async function callTool(
  deps: McpServerDeps,
  session: McpSessionContext,
  request: CallToolRequest,
  extra: CallExtra,
): Promise<CallToolResult> {
  const tool = request.params.name;
  if (tool === ENVIRONMENTS_TOOL) return toolResult(environmentsAnswer(deps.environments()));
  // An unknown tool is a protocol error (MCP 2025-06-18, "Tools: Error Handling"), not a tool result.
  if (!isToolName(tool))
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown tool "${clip(tool)}"; the tools are: ${[...TOOL_NAMES, ENVIRONMENTS_TOOL].join(', ')}`,
    );
  const token = extra._meta?.progressToken;
  const reporter =
    token !== undefined ? progressReporter(token, extra.sendNotification, deps.progressIntervalMs) : undefined;
  const cancel = cancellation(extra);
  const info: RunInfo = {};
  const started = performance.now();
  session.busy(1);
  try {
    const args = withDefaultEnvironment(request.params.arguments ?? {}, deps.environments);
    const result = await deps.pipeline.run(tool, args, {
      caller: session.caller,
      log: session.log,
      signal: cancel.signal,
      info,
      ...(reporter ? { onStarted: reporter.started, progress: reporter.progress } : {}),
    });
    logCall(session, tool, info, 200, started);
    // info.request_id as on HTTP, shareable by the same caller.
    const answer = attachRequestId(result, newRequestId(), info.provenance?.info);
    if (deps.links?.enabled)
      deps.links.record(answer.info.request_id, { tool, caller: session.caller, inputs: args, result: answer });
    return toolResult(answer);
  } catch (err) {
    // Cancelled by the client (notifications/cancelled): the SDK sends no answer to a cancelled request.
    const se = extra.signal.aborted ? serviceError('cancelled', 'by_client') : toServiceError(err);
    if (se.code === 'internal') session.log.error({ err, tool }, 'mcp tool call failed');
    logCall(session, tool, info, se.status, started);
    return toolError(se);
  } finally {
    cancel.dispose();
    session.busy(-1);
  }
}

/** The list_environments tool's answer: the listing (as the resource and GET /v1/environments) and the default. */
function environmentsAnswer(envs: EnvironmentInfo[]): { environments: EnvironmentInfo[]; default: string | null } {
  return { environments: envs, default: latestEnvironment(envs) ?? null };
}

/**
 * A call without `environment` runs on the default one (the newest available `lean-4.x.y`:
 * src/envs/latest.ts), as AXLE's MCP server fills it in; agents rarely know the names. Over
 * HTTP `environment` stays required, as AXLE's API has it. Arguments that are not an object
 * are left for the pipeline to refuse.
 */
function withDefaultEnvironment(args: Record<string, unknown>, envs: () => EnvironmentInfo[]): Record<string, unknown> {
  if (args.environment !== undefined) return args;
  const environment = latestEnvironment(envs());
  return environment === undefined ? args : { ...args, environment };
}

/** The request log line of a tool call (the HTTP line of the POST that carried it says only /mcp). */
function logCall(session: McpSessionContext, tool: string, info: RunInfo, status: number, started: number): void {
  session.log.info(
    {
      tool,
      environment: info.environment,
      keyClass: session.caller.keyClass,
      status,
      queueMs: info.queueMs,
      totalMs: Math.round(performance.now() - started),
      cache: info.cache,
    },
    'mcp tool call',
  );
}
