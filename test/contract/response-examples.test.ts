/**
 * The API reference's response examples are real answers: each request is sent again to a daemon
 * configured as shipped on a machine without Lean, and its answer must equal the example (the
 * request id and the times aside). The OpenAPI document carries them, so /docs shows them instead of
 * samples generated from the schemas.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { TOOL_EXAMPLES } from '../../src/contract/examples.ts';
import { buildOpenApi } from '../../src/contract/openapi.ts';
import { ERROR_EXAMPLES, RESPONSE_EXAMPLES, TIMINGS_EXAMPLE } from '../../src/contract/response-examples.ts';
import { TOOLS, type ToolName } from '../../src/contract/tools.ts';

/** The shipped configuration, with no toolchain on PATH or in HOME. */
async function shippedApp() {
  const home = mkdtempSync(path.join(os.tmpdir(), 'nolean-'));
  writeFileSync(path.join(home, 'none.json'), '{}');
  const hostEnv = { PATH: '/usr/bin:/bin', HOME: home, LEAN_TOOL_CONFIG: path.join(home, 'none.json') };
  return buildApp({ config: loadConfig(hostEnv), hostEnv, logger: false, startupChecks: false });
}

const sameShape = (x: Record<string, unknown>) => ({
  ...x,
  // The id is fresh each time and the commit is the checkout's: their presence is compared, not their value.
  info: { ...(x.info as object), request_id: 'id', _executor_commit_sha: 'commit' },
  timings: Object.keys(x.timings as object).sort(),
});

t.test('each example is what the daemon answers', async (t) => {
  const app = await shippedApp();
  t.teardown(() => app.close());
  for (const [tool, example] of Object.entries(RESPONSE_EXAMPLES)) {
    const payload = TOOL_EXAMPLES[tool as ToolName];
    const r = await app.inject({ method: 'POST', url: `/api/v1/${tool}`, payload });
    t.equal(r.statusCode, 200, tool);
    t.same(sameShape(r.json()), sameShape(example), `${tool}: the example is its real answer`);
    t.ok(TOOLS[tool as ToolName].response.safeParse(example).success, `${tool}: valid for the schema`);
  }
  for (const [status, e] of Object.entries(ERROR_EXAMPLES)) {
    const r = await app.inject({ method: 'POST', url: `/api/v1/${e.request.tool}`, payload: e.request.body });
    t.equal(r.statusCode, Number(status), `${status}: ${r.body}`);
    t.same(r.json(), e.body, `the ${status} example is the real answer`);
  }
});

t.test('the OpenAPI document carries them: no generated sample where an example exists', async (t) => {
  // The document's shape as far as read here (it is built as plain JSON).
  type Media = { example?: unknown; schema: { properties: { timings: { example?: unknown } } } };
  type Doc = { paths: Record<string, { post?: { responses: Record<string, { content: Record<string, Media> }> } }> };
  const doc = buildOpenApi('test') as Doc;
  const op = doc.paths['/api/v1/theorem2sorry']!.post!.responses as Record<string, { content: Record<string, Media> }>;
  t.same(op['200']!.content['application/json']!.example, RESPONSE_EXAMPLES.theorem2sorry);
  t.same(op['409']!.content['application/json']!.example, ERROR_EXAMPLES[409]!.body);
  t.same(op['400']!.content['application/json']!.example, ERROR_EXAMPLES[400]!.body);
  const check = doc.paths['/api/v1/check']!.post!.responses['200']!.content['application/json']!;
  t.notOk(check.example, 'no invented Lean result');
  t.same(check.schema.properties.timings.example, TIMINGS_EXAMPLE, 'timings: a real example, not additionalProp1');
  const comparator = JSON.stringify(doc.paths['/api/v1/comparator']);
  t.match(comparator, /jailed by bubblewrap/, "comparator's summary says how it is jailed");
  t.notMatch(comparator, /in a container/);
});
