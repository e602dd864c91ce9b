/**
 * Issue 29 item 9: the API reference shows a valid example request for every tool ("Try it out"
 * sends it) and describes content and environment.
 */
import t from 'tap';
import { TOOL_EXAMPLES } from '../../src/contract/examples.ts';
import { buildOpenApi } from '../../src/contract/openapi.ts';
import { TOOL_NAMES } from '../../src/contract/tools.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';

type Doc = {
  paths: Record<
    string,
    {
      post?: {
        requestBody: {
          content: Record<
            string,
            { example?: unknown; schema: { properties: Record<string, { description?: string }> } }
          >;
        };
      };
    }
  >;
};

t.test('every tool has an example request, and it validates against the tool schema', async (t) => {
  for (const tool of TOOL_NAMES) {
    const example = (TOOL_EXAMPLES as Record<string, unknown>)[tool];
    t.ok(example, `${tool} has an example (src/contract/examples.ts)`);
    t.doesNotThrow(() => parseToolRequest(tool, example), `${tool}'s example is a valid request`);
  }
});

t.test('the OpenAPI document carries each example and describes content and environment', async (t) => {
  const doc = buildOpenApi('test') as unknown as Doc;
  for (const tool of TOOL_NAMES) {
    const media = doc.paths[`/api/v1/${tool}`]!.post!.requestBody.content['application/json']!;
    t.same(media.example, (TOOL_EXAMPLES as Record<string, unknown>)[tool], `${tool}: the example is shown`);
    t.doesNotThrow(() => parseToolRequest(tool, media.example), `${tool}: "Try it out" sends a valid body`);
    const props = media.schema.properties;
    t.match(props.environment?.description, /GET \/v1\/environments/, `${tool}: environment is described`);
    if (props.content) t.match(props.content.description, /Lean source/, `${tool}: content is described`);
  }
});
