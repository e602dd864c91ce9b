/** The OpenAPI 3.1 document, derived from the zod schemas (never written by hand). */
import { z } from 'zod';
import { ERROR_CODES } from '../errors.ts';
import { environmentInfo, errorBody, responseInfo } from './common.ts';
import { toolExample } from './examples.ts';
import { ERROR_EXAMPLES, RESPONSE_EXAMPLES } from './response-examples.ts';
import { shareCreated, sharedLink, shareRequest } from './shared-links.ts';
import { TOOLS, TOOL_NAMES, type ToolName } from './tools.ts';

const json = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;

function errorResponses(): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  // The codes answered with 200 in AXLE's shape (lean_timeout, lean_resource_exceeded) are not error statuses.
  for (const [code, e] of Object.entries(ERROR_CODES))
    if (e.status !== 200) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), code]);
  const ref = { $ref: '#/components/schemas/Error' };
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => {
      const example = ERROR_EXAMPLES[status]?.body;
      const media = { schema: ref, ...(example ? { example } : {}) };
      return [String(status), { description: `codes: ${codes.join(', ')}`, content: { 'application/json': media } }];
    }),
  );
}

/** `POST /api/v1/<tool>`: its request and response schemas, an example request, and the error answers. */
function toolOperation(name: ToolName, errors: Record<string, unknown>): Record<string, unknown> {
  const spec = TOOLS[name];
  return {
    post: {
      operationId: name,
      summary: spec.summary,
      deprecated: 'deprecated' in spec ? spec.deprecated : undefined,
      security: [{}, { bearer: [] }],
      requestBody: {
        required: true,
        // "Try it out" sends this example: valid for the tool (test/contract/examples.test.ts).
        content: { 'application/json': { schema: json(spec.request, 'input'), example: toolExample(name) } },
      },
      responses: {
        200: {
          description: 'Tool result (Lean and tool findings are in lean_messages / tool_messages)',
          content: {
            'application/json': {
              schema: json(spec.response.extend({ info: responseInfo }), 'output'),
              ...(RESPONSE_EXAMPLES[name] ? { example: RESPONSE_EXAMPLES[name] } : {}),
            },
          },
        },
        ...errors,
      },
    },
  };
}

/** The service's own paths beside the tools: environments, endpoints, shared links, status. */
function servicePaths(errors: Record<string, unknown>): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  paths['/v1/environments'] = {
    get: {
      operationId: 'environments',
      summary: 'List the Lean environments',
      responses: {
        200: {
          description: 'Environments',
          content: { 'application/json': { schema: json(z.array(environmentInfo), 'output') } },
        },
      },
    },
  };
  paths['/v1/endpoints'] = {
    get: {
      operationId: 'endpoints',
      summary: "Tool metadata in AXLE's form (what AXLE's MCP server builds its tool schemas from); needs no key",
      responses: {
        200: { description: '{tool: {description, inputs: [{name, type, description, required, default?}]}}' },
      },
    },
  };
  paths['/v1/shared-links'] = {
    post: {
      operationId: 'share',
      summary: 'Save a recent request of yours (its info.request_id) as a shared link',
      requestBody: { required: true, content: { 'application/json': { schema: json(shareRequest, 'input') } } },
      responses: {
        201: { description: 'Saved', content: { 'application/json': { schema: json(shareCreated, 'output') } } },
        ...errors,
      },
    },
  };
  paths['/v1/shared-links/{request_id}'] = {
    get: {
      operationId: 'sharedLink',
      summary: 'A saved shared link: the request and its result',
      parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      responses: {
        200: { description: 'The link', content: { 'application/json': { schema: json(sharedLink, 'output') } } },
        ...errors,
      },
    },
  };
  paths['/v1/status'] = {
    get: {
      operationId: 'status',
      summary: 'Health, pools and queues',
      responses: { 200: { description: '{"status":"healthy", ...}' } },
    },
  };
  return paths;
}

export function buildOpenApi(version: string): Record<string, unknown> {
  const errors = errorResponses();
  const paths: Record<string, unknown> = Object.fromEntries(
    TOOL_NAMES.map((name) => [`/api/v1/${name}`, toolOperation(name, errors)]),
  );
  Object.assign(paths, servicePaths(errors));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lean tool service',
      version,
      description: 'Lean 4 proof tooling: verify, repair, transform and analyse Lean source.',
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'API key; requests without one share one anonymous slot.',
        },
      },
      schemas: { Error: json(errorBody, 'output') },
    },
    paths,
  };
}
