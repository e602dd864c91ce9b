/**
 * The MCP view of the tool contract: one MCP tool per service tool, its input and output
 * JSON Schemas derived from the zod request and response schemas (src/contract/tools.ts) the
 * same way as the OpenAPI document, its description the contract's summary. Nothing here is
 * written per tool: a tool added to the contract is listed on /mcp at once.
 */
import { z } from 'zod';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS, TOOL_NAMES, type ToolName } from '../../contract/tools.ts';
import { executorInfo } from '../../contract/common.ts';
import { axleErrorType, type ServiceError } from '../../errors.ts';

/** The URI of the environment listing, as an MCP resource (the answer of GET /v1/environments). */
export const ENVIRONMENTS_URI = 'lean-tool://environments';
/** The same listing as a tool (AXLE's MCP server has `list_environments`): many agents call tools and never read resources. */
export const ENVIRONMENTS_TOOL = 'list_environments';

type JsonObject = { [k: string]: unknown };

const requestInfo = z.object({
  ...executorInfo,
  request_id: z.string().describe('This call, for POST /v1/shared-links.'),
});

/**
 * A zod schema as an MCP tool schema: JSON Schema 2020-12 (MCP's default dialect since
 * 2025-11-25), with `$schema` left out so clients on earlier protocol versions, which assume
 * draft-07 and may refuse a `$schema` they do not know, read the same object.
 */
function toolSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as JsonObject;
  return rest as Tool['inputSchema'];
}

function describe(tool: ToolName): string {
  const spec = TOOLS[tool];
  const deprecated = 'deprecated' in spec && spec.deprecated ? ' (Deprecated.)' : '';
  return (
    `${spec.summary}${deprecated} \`environment\` names a Lean environment (${ENVIRONMENTS_TOOL}, or resource ${ENVIRONMENTS_URI}); ` +
    'left out, the newest available lean-4.x.y. ' +
    'Lean and tool findings are in lean_messages and tool_messages of the result; a request the service refuses is a tool error naming the reason.'
  );
}

/** A tool's input schema with `environment` optional: an MCP call without one gets the default (mcp-server.ts). */
function inputSchema(name: ToolName): Tool['inputSchema'] {
  const schema = toolSchema(TOOLS[name].request, 'input');
  const required = schema.required?.filter((k) => k !== 'environment');
  const env = schema.properties?.environment as JsonObject | undefined;
  const properties = env
    ? {
        ...schema.properties,
        environment: {
          ...env,
          description: `${String(env.description ?? '')} Default: the newest available lean-4.x.y.`,
        },
      }
    : schema.properties;
  return { ...schema, properties, ...(required ? { required } : {}) };
}

const environmentsTool: Tool = {
  name: ENVIRONMENTS_TOOL,
  description:
    'The Lean environments of this service (as GET /v1/environments): name, toolchain, imports, ' +
    'whether each can run Lean now, and `default`, the one a call without `environment` runs on.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** Every tool, built once (converting the schemas costs a few milliseconds). */
export function mcpToolList(): Tool[] {
  return [...TOOL_NAMES.map(contractTool), environmentsTool];
}

function contractTool(name: ToolName): Tool {
  return {
    name,
    description: describe(name),
    inputSchema: inputSchema(name),
    // Every answer carries info.request_id (src/server/request-id.ts), as over HTTP.
    outputSchema: toolSchema(TOOLS[name].response.extend({ info: requestInfo }), 'output'),
    // The tools read their input and change nothing anywhere (MCP tool annotations, 2025-03-26).
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/** A tool's answer: the JSON object as structured content, and as text for clients that read only text. */
export function toolResult(result: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result as JsonObject,
  };
}

/**
 * A refused or failed request (HTTP's non-200 answers) as an MCP tool error: `isError` with the
 * same `{error: {code, message, details?}}` envelope HTTP sends, plus the status it would have
 * had and, for 429/503, when to retry.
 */
export function toolError(e: ServiceError): CallToolResult {
  const errorType = axleErrorType(e.code);
  const body = {
    ...e.toBody(),
    status: e.status,
    // A deterministic Lean failure names AXLE's exception too (LeanTimeout, LeanResourceExceeded): not to be retried.
    ...(errorType !== undefined ? { error_type: errorType } : {}),
    ...(e.retryAfter !== undefined ? { retry_after_seconds: e.retryAfter } : {}),
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}
