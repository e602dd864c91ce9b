/**
 * Issue 29 item 6: GET /v1/endpoints, read the way AXLE's MCP server reads it. The functions
 * below re-state, line for line, the parsing of AxiomMath/axle-mcp-server
 * `axle_mcp_server/server.py` (TYPE_MAP, field_to_json_schema, build_input_schema,
 * _has_textarea_content, _inject_file_uri, _build_tool_defs, _default_environment,
 * handle_call_tool's request building): the Python package `mcp` it imports is not installed
 * here, so it cannot be run as is. Then every tool is called as the MCP server would call it.
 */
import t from 'tap';
import { TOOL_EXAMPLES } from '../../src/contract/examples.ts';
import { TOOL_NAMES, TOOLS } from '../../src/contract/tools.ts';
import type { ToolTable } from '../../src/tools/types.ts';
import { contentResult, makeApp, testConfig } from '../helpers.ts';

type Json = Record<string, unknown>;

// --- server.py, re-stated ------------------------------------------------------------------
const TYPE_MAP: Record<string, Json> = {
  text: { type: 'string' },
  textarea: { type: 'string' },
  textarea_list: { type: 'array', items: { type: 'string' } },
  number: { type: 'number' },
  checkbox: { type: 'boolean' },
  list: { type: 'array', items: { type: 'string' } },
  dict: { type: 'object' },
};

function fieldToJsonSchema(field: Json): Json {
  const fieldType = (field.type as string | undefined) ?? 'text';
  const schema: Json = { ...(TYPE_MAP[fieldType] ?? { type: 'string' }) };
  if (fieldType === 'list' && field.cli_list_type === 'int') schema.items = { type: 'integer' };
  if ('description' in field) schema.description = field.description;
  if ('default' in field) schema.default = field.default;
  return schema;
}

function buildInputSchema(inputs: Json[], defaultEnvironment: string | null): Json {
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const field of inputs) {
    const name = field.name as string; // field["name"]: a KeyError in Python when absent
    const prop = fieldToJsonSchema(field);
    if (name === 'environment' && defaultEnvironment) prop.default = defaultEnvironment;
    properties[name] = prop;
    if (field.required && name !== 'environment') required.push(name);
  }
  const schema: Json = { type: 'object', properties };
  if (required.length) schema.required = required;
  return schema;
}

const hasTextareaContent = (inputs: Json[]) => inputs.some((f) => f.name === 'content' && f.type === 'textarea');

function injectFileUri(schema: Json): Json {
  (schema.properties as Json).file_uri = { type: 'string', format: 'uri' };
  const required = ((schema.required as string[] | undefined) ?? []).filter((r) => r !== 'content');
  if (required.length) schema.required = required;
  else delete schema.required;
  return schema;
}

function buildToolDefs(endpoints: Record<string, Json>, defaultEnvironment: string) {
  return Object.entries(endpoints).map(([name, meta]) => {
    const inputs = (meta.inputs as Json[] | undefined) ?? [];
    let schema = buildInputSchema(inputs, defaultEnvironment);
    if (hasTextareaContent(inputs)) schema = injectFileUri(schema);
    return { name, description: (meta.description as string | undefined) ?? name, inputSchema: schema };
  });
}

function defaultEnvironment(environments: Json[]): string {
  let best: string | null = null;
  let bestVersion: [number, number] = [-1, -1];
  for (const env of environments) {
    const m = /^lean-4\.(\d+)\.(\d+)$/.exec(env.name as string);
    if (m) {
      const v: [number, number] = [Number(m[1]), Number(m[2])];
      if (v[0] > bestVersion[0] || (v[0] === bestVersion[0] && v[1] > bestVersion[1])) {
        bestVersion = v;
        best = env.name as string;
      }
    }
  }
  return best ?? (environments.at(-1)!.name as string);
}
// ---------------------------------------------------------------------------------------------

/** A stand-in for every tool: echoes content, so each call answers 200 once its request validates. */
function echoTools(): ToolTable {
  const table: Record<string, unknown> = {};
  for (const name of TOOL_NAMES)
    table[name] = {
      needsLean: () => false,
      run: async (req: Json) => contentResult(String(req.content ?? '')),
    };
  return table as ToolTable;
}

const ENVS = ['lean-4.21.0', 'lean-4.28.0', 'lean-4.9.0', 'pnt-4.26.0'].map((name) => ({
  name,
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/nonexistent',
}));

t.test('GET /v1/endpoints: every tool, with the fields server.py reads, derived from the contract', async (t) => {
  const app = await makeApp({ config: testConfig({ keys: [{ key: 'configured-key-1' }] }) });
  t.teardown(() => app.close());
  const r = await app.inject({ method: 'GET', url: '/v1/endpoints' });
  t.equal(r.statusCode, 200, 'needs no key even when keys are configured');
  const endpoints = r.json() as Record<string, { description: string; inputs: Json[] }>;
  t.same(Object.keys(endpoints).sort(), [...TOOL_NAMES].sort());
  // theorem2sorry as the spec lists its parameters ("Parameter support per tool": the common ones, then
  // names, indices, theorems_only, reparse, mathlib_options, global_options) in server.py's types.
  const shape = (i: Json) => [i.name, i.type, i.required, i.default ?? null, i.cli_list_type ?? null];
  t.match(endpoints.theorem2sorry!.description, /^Replace theorem proofs with sorry/, 'the spec’s summary');
  t.same(
    endpoints.theorem2sorry!.inputs.map(shape),
    [
      ['content', 'textarea', true, null, null],
      ['environment', 'text', true, null, null],
      ['ignore_imports', 'checkbox', false, true, null],
      ['timeout_seconds', 'number', false, 120, null],
      ['names', 'list', false, null, null],
      ['indices', 'list', false, null, 'int'],
      ['theorems_only', 'checkbox', false, true, null],
      ['reparse', 'checkbox', false, true, null],
      ['mathlib_options', 'checkbox', false, false, null],
      ['global_options', 'dict', false, null, null],
    ],
    'theorem2sorry: the spec’s parameters, types, requiredness and defaults',
  );
  for (const name of TOOL_NAMES) {
    const fields = Object.keys(TOOLS[name].request.shape).sort();
    t.same(endpoints[name]!.inputs.map((i) => i.name).sort(), fields, `${name}: one input per request field`);
    for (const i of endpoints[name]!.inputs) {
      t.same(
        Object.keys(i).filter(
          (k) => !['name', 'type', 'description', 'default', 'required', 'cli_list_type'].includes(k),
        ),
        [],
        `${name}.${String(i.name)}: only fields server.py reads`,
      );
      t.ok(Object.hasOwn(TYPE_MAP, i.type as string), `${name}.${String(i.name)}: a type server.py knows`);
    }
  }
  const check = endpoints.check!.inputs;
  t.match(
    check.find((i) => i.name === 'content'),
    { type: 'textarea', required: true },
  );
  t.match(
    check.find((i) => i.name === 'timeout_seconds'),
    { type: 'number', required: false, default: 120 },
  );
  t.match(
    check.find((i) => i.name === 'mathlib_options'),
    { type: 'checkbox', default: false },
  );
  t.match(
    check.find((i) => i.name === 'global_options'),
    { type: 'dict' },
  );
  t.match(
    endpoints.theorem2sorry!.inputs.find((i) => i.name === 'indices'),
    { type: 'list', cli_list_type: 'int' },
  );
  t.match(
    endpoints.merge!.inputs.find((i) => i.name === 'documents'),
    { type: 'textarea_list', required: true },
  );
});

t.test('the MCP server built from our answer lists and calls every tool', async (t) => {
  const app = await makeApp({
    tools: echoTools(),
    probe: () => ({ available: true }),
    config: testConfig({ environments: ENVS }),
  });
  t.teardown(() => app.close());
  const endpoints = (await app.inject({ method: 'GET', url: '/v1/endpoints' })).json() as Record<string, Json>;
  const environments = (await app.inject({ method: 'GET', url: '/v1/environments' })).json() as Json[];
  const env = defaultEnvironment(environments);
  t.equal(env, 'lean-4.28.0', 'the default environment server.py picks');
  const defs = buildToolDefs(endpoints, env);
  t.same(defs.map((d) => d.name).sort(), [...TOOL_NAMES].sort(), 'one MCP tool per service tool');
  for (const def of defs) {
    const schema = def.inputSchema as { properties: Json; required?: string[] };
    const example = { ...(TOOL_EXAMPLES as Record<string, Json>)[def.name] };
    // An agent fills the schema; the MCP server adds the default environment when absent.
    delete example.environment;
    for (const k of Object.keys(example)) t.ok(k in schema.properties, `${def.name}: ${k} is in the MCP schema`);
    for (const k of schema.required ?? []) t.ok(k in example, `${def.name}: required ${k} is given`);
    const args: Json = { ...example };
    if (!('environment' in args)) args.environment = env;
    const request = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));
    const r = await app.inject({
      method: 'POST',
      url: `/api/v1/${def.name}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(request),
    });
    t.equal(r.statusCode, 200, `${def.name}: ${r.statusCode === 200 ? 'called' : r.body}`);
    const result = r.json() as Json;
    for (const key of ['internal_error', 'user_error', 'error'])
      t.notOk(key in result, `${def.name}: no "${key}" key (server.py raises on it)`);
    t.match((result.info as Json | undefined)?.request_id, /^[0-9a-f-]{36}$/, `${def.name}: info.request_id`);
  }
});
