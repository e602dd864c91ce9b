import t from 'tap';
import { TOOL_NAMES, TOOLS } from '../../src/contract/tools.ts';
import { makeApp, testConfig, TEST_ENV, UNAVAILABLE_ENV, validRequest } from '../helpers.ts';
import { errorBody } from '../../src/contract/common.ts';

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: path,
  payload: typeof body === 'string' ? body : JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
});

t.test('every tool route: valid body passes validation; invalid body is a 400 naming the field', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  for (const tool of TOOL_NAMES) {
    const ok = await app.inject(post(`/api/v1/${tool}`, validRequest(tool)));
    t.not(ok.statusCode, 400, `${tool}: valid request accepted`);
    if (tool === 'comparator' && ok.statusCode === 409) {
      // The test environment has a REPL double but no comparator builds: said so, naming them.
      t.equal(ok.json().error.code, 'environment_unavailable');
      t.match(ok.json().error.message, /cannot run comparator: missing .*comparator/);
    } else if (ok.statusCode === 501) {
      t.equal(ok.json().error.code, 'not_implemented', `${tool}: not implemented yet, said so`);
      t.match(ok.json().error.message, tool);
    } else {
      t.equal(ok.statusCode, 200, `${tool}: implemented and answered`);
      t.ok(TOOLS[tool].response.safeParse(ok.json()).success, `${tool}: the response matches its schema`);
    }
    const bad = await app.inject(post(`/api/v1/${tool}`, { ...validRequest(tool), environment: 7 }));
    t.equal(bad.statusCode, 400);
    t.ok(errorBody.safeParse(bad.json()).success, 'error envelope shape');
    t.same(
      bad.json().error.details.map((d: { field: string }) => d.field),
      ['environment'],
    );
    const { environment: _e, ...missing } = validRequest(tool);
    t.same(
      (await app.inject(post(`/api/v1/${tool}`, missing))).json().error.details.map((d: { field: string }) => d.field),
      ['environment'],
      `${tool}: missing field named`,
    );
    const extra = (await app.inject(post(`/api/v1/${tool}`, { ...validRequest(tool), bogus_param: 1 }))).json();
    t.same(
      extra.error.details,
      [{ field: 'bogus_param', message: `is not a parameter of ${tool}` }],
      `${tool}: unknown parameter named`,
    );
  }
});

t.test('unknown tool, unknown route, unknown environment', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r1 = await app.inject(post('/api/v1/prove_riemann', validRequest('check')));
  t.equal(r1.statusCode, 404);
  t.equal(r1.json().error.code, 'unknown_tool');
  t.match(r1.json().error.message, 'theorem2sorry');
  const r2 = await app.inject({ method: 'GET', url: '/api/v1/nowhere/at/all' });
  t.equal(r2.statusCode, 404);
  t.equal(r2.json().error.code, 'not_found');
  const r3 = await app.inject(post('/api/v1/check', validRequest('check', 'lean-0.0.1')));
  t.equal(r3.statusCode, 404);
  t.equal(r3.json().error.code, 'unknown_environment');
  t.match(r3.json().error.message, TEST_ENV);
});

t.test('the earlier path form /v1/<service>/<tool> reaches the same tool', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r = await app.inject(post('/v1/axle/theorem2sorry', { ...validRequest('theorem2sorry'), bogus: 1 }));
  t.equal(r.statusCode, 400);
  t.same(r.json().error.details, [{ field: 'bogus', message: 'is not a parameter of theorem2sorry' }]);
  const r2 = await app.inject(post('/v1/axle/nope', validRequest('check')));
  t.equal(r2.json().error.code, 'unknown_tool');
});

t.test('body errors: 413, malformed JSON, empty body; JSON is accepted whatever the content type', async (t) => {
  const app = await makeApp({ config: testConfig({ server: { bodyLimitBytes: 1024 } }) });
  t.teardown(() => app.close());
  const big = await app.inject(post('/api/v1/check', { ...validRequest('check'), content: 'x'.repeat(4096) }));
  t.equal(big.statusCode, 413);
  t.equal(big.json().error.code, 'payload_too_large');
  const bad = await app.inject(post('/api/v1/check', '{"content": "x", '));
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().error.code, 'malformed_json');
  const empty = await app.inject(post('/api/v1/check', ''));
  t.equal(empty.statusCode, 400);
  t.equal(empty.json().error.code, 'malformed_json');
  const form = await app.inject(
    post('/api/v1/check', 'content=x', { 'content-type': 'application/x-www-form-urlencoded' }),
  );
  t.equal(form.statusCode, 400);
  t.equal(form.json().error.code, 'malformed_json', 'a form body is not JSON: said so, not 415');
  const emptyUntyped = await app.inject({ method: 'POST', url: '/api/v1/check' });
  t.equal(emptyUntyped.statusCode, 400);
  t.equal(
    emptyUntyped.json().error.code,
    'malformed_json',
    'no body and no content type: the same answer as an empty JSON body (docs/errors.md)',
  );
  const text = await app.inject(
    post('/api/v1/check', validRequest('check', 'no-such-env'), { 'content-type': 'text/plain; charset=utf-8' }),
  );
  t.equal(text.json().error.code, 'unknown_environment', 'text/plain JSON (the AXLE client) is parsed as JSON');
  const textBad = await app.inject(post('/api/v1/check', 'not json', { 'content-type': 'text/plain' }));
  t.equal(textBad.json().error.code, 'malformed_json');
  const proto = await app.inject(
    post('/api/v1/check', '{"__proto__": {"x": 1}, "content": "", "environment": "lean-test"}'),
  );
  t.equal(proto.statusCode, 400, 'prototype poisoning is refused');
});

t.test('API keys: unknown key 401 on tools, malformed header 401, known key accepted', async (t) => {
  const app = await makeApp({ config: testConfig({ keys: [{ key: 'user-key-123' }] }) });
  t.teardown(() => app.close());
  const bad = await app.inject(post('/api/v1/check', validRequest('check'), { authorization: 'Bearer wrong-key-999' }));
  t.equal(bad.statusCode, 401);
  t.equal(bad.json().error.code, 'unauthorized');
  const basic = await app.inject(post('/api/v1/check', validRequest('check'), { authorization: 'Basic dXNlcjpwYXNz' }));
  t.equal(basic.statusCode, 401);
  const good = await app.inject(
    post('/api/v1/check', validRequest('check', 'no-such-env'), { authorization: 'Bearer user-key-123' }),
  );
  t.equal(good.json().error.code, 'unknown_environment', 'a known key gets through to validation');
  const envs = await app.inject({
    method: 'GET',
    url: '/v1/environments',
    headers: { authorization: 'Bearer nope-nope-nope' },
  });
  t.equal(envs.statusCode, 200, 'the public listings need no key: a bad one is read as anonymous (docs/auth.md)');
});

t.test('GET /v1/environments: spec fields plus availability', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const envs = (await app.inject({ method: 'GET', url: '/v1/environments' })).json();
  t.equal(envs.length, 2);
  const [ok, missing] = envs;
  t.same(
    Object.keys(ok).sort(),
    ['available', 'description', 'imports', 'lean_toolchain', 'name', 'repo_url', 'revision', 'subdir'].sort(),
  );
  t.equal(ok.available, true);
  t.equal(missing.name, UNAVAILABLE_ENV);
  t.equal(missing.available, false);
  t.match(missing.unavailable_reason, /toolchain/);
  t.equal(ok.repo_url, null);
});

t.test("AXLE's documented curl form (-d, so x-www-form-urlencoded) and no content type at all: 200", async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const body = JSON.stringify({
    content: 'theorem left_as_exercise : 1 = 1 := rfl',
    environment: UNAVAILABLE_ENV,
    reparse: false,
  });
  for (const headers of [
    { 'content-type': 'application/x-www-form-urlencoded' },
    {},
    { 'content-type': 'text/plain' },
    { 'content-type': 'application/octet-stream' },
  ]) {
    const r = await app.inject({ method: 'POST', url: '/api/v1/theorem2sorry', payload: body, headers });
    t.equal(r.statusCode, 200, JSON.stringify(headers));
    t.equal(r.json().content, 'theorem left_as_exercise : 1 = 1 := sorry');
  }
  // The same over a real socket with curl's exact headers (inject may add its own).
  await app.listen({ host: '127.0.0.1', port: 0 });
  const res = await fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/theorem2sorry`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: '*/*', 'user-agent': 'curl/8.5.0' },
  });
  t.equal(res.status, 200);
});

t.test('405 with Allow for a known path and the wrong method', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  for (const [method, url, allow] of [
    ['GET', '/api/v1/check', 'POST'],
    ['PUT', '/api/v1/theorem2sorry', 'POST'],
    ['POST', '/v1/environments', 'GET, HEAD'],
    ['DELETE', '/v1/status', 'GET, HEAD'],
    ['GET', '/v1/axle/check', 'POST'],
    ['POST', '/docs', 'GET, HEAD'],
  ] as const) {
    const r = await app.inject({ method, url });
    t.equal(r.statusCode, 405, `${method} ${url}`);
    t.equal(r.headers.allow, allow);
    t.equal(r.json().error.code, 'method_not_allowed');
    t.match(r.json().error.message, `${method} is not allowed on ${url}`);
  }
});

t.test('GET / points to /docs, an interactive API reference over the same OpenAPI document', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const root = await app.inject({ method: 'GET', url: '/' });
  t.equal(root.statusCode, 302);
  t.equal(root.headers.location, '/docs');
  t.equal(root.json().openapi, '/docs/json');
  const page = await app.inject({ method: 'GET', url: '/docs' });
  const html =
    page.statusCode === 302
      ? await app.inject({
          method: 'GET',
          url: String(page.headers.location).startsWith('/')
            ? String(page.headers.location)
            : `/docs/${String(page.headers.location)}`,
        })
      : page;
  t.equal(html.statusCode, 200);
  t.match(String(html.headers['content-type']), /text\/html/);
  t.match(html.body, /swagger-ui/i, 'Swagger UI, served by the daemon itself');
  const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  t.equal(init.statusCode, 200);
  t.match(init.body, /\.\/json/, 'the page loads the document served beside it at /docs/json');
});

t.test('GET /v1/status and /docs/json', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const status = (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  t.equal(status.status, 'healthy');
  t.same(status.admission, { active: 0, queued: 0, callers: {} });
  t.equal(status.environments.length, 2);
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
  t.equal(doc.openapi, '3.1.0');
  for (const tool of TOOL_NAMES) t.ok(doc.paths[`/api/v1/${tool}`]?.post, `${tool} documented`);
  const t2s = doc.paths['/api/v1/theorem2sorry'].post.requestBody.content['application/json'].schema;
  t.same(t2s.required.sort(), ['content', 'environment']);
  t.equal(t2s.properties.reparse.default, true);
  t.equal(t2s.additionalProperties, false, 'unknown parameters are refused, and the document says so');
  t.equal(doc.paths['/api/v1/extract_theorems'].post.deprecated, true);
  t.ok(doc.paths['/api/v1/check'].post.responses['504'], 'error statuses documented');
});

t.test('responses are one line of JSON (the AXLE client reads exactly one line)', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  for (const url of ['/v1/environments', '/v1/status']) {
    const r = await app.inject({ method: 'GET', url });
    t.equal(r.body.trim().split('\n').length, 1);
  }
});

t.test(
  'a 501 is decided before environment availability; verify_negation and comparator are no longer 501',
  async (t) => {
    const app = await makeApp();
    t.teardown(() => app.close());
    const byTool = async (tool: 'extract_decls' | 'verify_proof' | 'comparator', extra: Record<string, unknown> = {}) =>
      app.inject(post(`/api/v1/${tool}`, { ...validRequest(tool, UNAVAILABLE_ENV), ...extra }));
    for (const tool of TOOL_NAMES) {
      const r = await app.inject(post(`/api/v1/${tool}`, validRequest(tool, UNAVAILABLE_ENV)));
      // Structural tools answer (200) even there; Lean-backed ones say the environment is unavailable; none hides a 501 behind a 503.
      if (r.statusCode === 501)
        t.equal(r.json().error.code, 'not_implemented', `${tool}: 501 on an unavailable environment too`);
      else t.ok([200, 409].includes(r.statusCode), `${tool}: ${r.statusCode}`);
    }
    const neg = await byTool('verify_proof', { verify_negation: true });
    t.equal(neg.statusCode, 409, 'verify_negation is implemented: the unavailable environment is the answer');
    t.equal((await byTool('comparator')).statusCode, 409);
  },
);

// A challenge with a definition hole at a pin without them (TEST_ENV is Lean v4.28.0): refused with a 400 naming
// why, before any build is looked for, and never cached (a second identical request is not a hit).
t.test('comparator: definition holes at a v4.28.0 pin are refused, every time', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const body = {
    ...validRequest('comparator'),
    formal_statement: 'def n : Nat := sorry\n\ntheorem foo : n + 17 = 34 := sorry\n',
    content: 'def n : Nat := 17\n\ntheorem foo : n + 17 = 34 := rfl\n',
  };
  for (const attempt of [1, 2]) {
    const r = await app.inject(post('/api/v1/comparator', body));
    t.equal(r.statusCode, 400, `attempt ${attempt}`);
    t.equal(r.json().error.code, 'invalid_request');
    t.match(r.json().error.message, /definition holes \(sorried definitions: n\); comparator v4\.28\.0/);
    t.same(
      r.json().error.details.map((d: { field: string }) => d.field),
      ['formal_statement'],
    );
    t.not(r.headers['x-cache'], 'hit', `attempt ${attempt}: not answered from the cache`);
  }
});
