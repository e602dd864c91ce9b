/**
 * `GET /v1/endpoints`: tool metadata in the form AXLE publishes it, derived from the zod
 * contract so a new tool appears here at once. It holds exactly what AXLE's MCP server reads to
 * build its tool schemas (AxiomMath/axle-mcp-server `axle_mcp_server/server.py`):
 * `_build_tool_defs` reads each endpoint's `description` and `inputs`; `field_to_json_schema`
 * and `build_input_schema` read each input's `name`, `type`, `description`, `default`,
 * `required` and `cli_list_type`; `_has_textarea_content` looks for `content` of type
 * `textarea` (then it offers `file_uri`). The type names are AXLE's (`axle/endpoints.py`,
 * `InputField.type`: text, textarea, textarea_list, list, dict, number, checkbox).
 */
import { z } from 'zod';
import { TOOLS, TOOL_NAMES } from './tools.ts';

export type InputType = 'text' | 'textarea' | 'textarea_list' | 'list' | 'dict' | 'number' | 'checkbox';

export interface EndpointInput {
  name: string;
  type: InputType;
  description: string;
  required: boolean;
  default?: unknown;
  /** AXLE's element type of a list input, given for integer lists only ("int"). */
  cli_list_type?: 'int';
}

export interface EndpointMeta {
  description: string;
  inputs: EndpointInput[];
}

/** Inputs that hold Lean source: a text area in AXLE's forms. */
const SOURCE_FIELDS = new Set(['content', 'formal_statement']);

type JsonSchema = {
  type?: string | string[];
  items?: JsonSchema;
  description?: string;
  default?: unknown;
  enum?: unknown[];
};

/** The AXLE input type of one field, from its JSON schema (the contract's zod schema converted). */
function inputType(name: string, s: JsonSchema): Pick<EndpointInput, 'type' | 'cli_list_type'> {
  const t = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (t) {
    case 'boolean':
      return { type: 'checkbox' };
    case 'number':
    case 'integer':
      return { type: 'number' };
    case 'object':
      return { type: 'dict' };
    case 'array': {
      const item = Array.isArray(s.items?.type) ? s.items.type[0] : s.items?.type;
      if (item === 'integer') return { type: 'list', cli_list_type: 'int' };
      return { type: name === 'documents' ? 'textarea_list' : 'list' };
    }
    default:
      return { type: SOURCE_FIELDS.has(name) ? 'textarea' : 'text' };
  }
}

/** One tool's metadata. */
export function endpointMeta(tool: keyof typeof TOOLS): EndpointMeta {
  const spec = TOOLS[tool];
  const schema = z.toJSONSchema(spec.request, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const inputs = Object.entries(schema.properties ?? {}).map(([name, s]): EndpointInput => {
    const input: EndpointInput = {
      name,
      ...inputType(name, s),
      description: s.description ?? name.replaceAll('_', ' '),
      required: required.has(name),
    };
    if (s.default !== undefined) input.default = s.default;
    return input;
  });
  return { description: spec.summary, inputs };
}

/** Every tool's metadata, keyed by tool name (the body of GET /v1/endpoints). */
export function endpointsMetadata(): Record<string, EndpointMeta> {
  return Object.fromEntries(TOOL_NAMES.map((name) => [name, endpointMeta(name)]));
}
