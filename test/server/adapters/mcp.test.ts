/**
 * /mcp end to end with the official SDK's own Client over Streamable HTTP: the tool list
 * derived from the contract, a tool call through the same pipeline and cache as HTTP, a 409
 * as a tool error, validation as HTTP words it, cancellation freeing the caller's slot,
 * progress notifications, the environments resource, keys, and the session bounds.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { TOOL_NAMES, TOOLS } from '../../../src/contract/tools.ts';
import { ENVIRONMENTS_TOOL, ENVIRONMENTS_URI } from '../../../src/server/adapters/mcp-tools.ts';
import { Pipeline } from '../../../src/server/pipeline.ts';
import { makeApp, TEST_ENV, testConfig, testEnvironments, UNAVAILABLE_ENV } from '../../helpers.ts';
import { blockingCheck } from '../../helpers/blocking-check.ts';
import { listenLoopback } from '../../helpers/loopback.ts';

const CONTENT = 'theorem foo : 1 + 1 = 2 := by\n  norm_num\n\ntheorem bar : True := trivial\n';

const listen = async (app: FastifyInstance) => new URL(`${(await listenLoopback(app)).http}/mcp`);

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** A test daemon (`makeApp(opts)`) and an MCP client of its /mcp; both closed with the test. */
async function daemonAndClient(t: Test, opts: Parameters<typeof makeApp>[0] = {}) {
  const app = await makeApp(opts);
  t.teardown(() => app.close());
  const client = await connect(await listen(app));
  t.teardown(() => client.close());
  return { app, client };
}

const text = (r: unknown) =>
  JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Record<string, unknown>;

t.test('tools/list: one tool per contract tool, schemas and descriptions from the contract', async (t) => {
  const { client } = await daemonAndClient(t);
  const { tools } = await client.listTools();
  t.same(tools.map((x) => x.name).sort(), [...TOOL_NAMES, ENVIRONMENTS_TOOL].sort());
  const t2s = tools.find((x) => x.name === 'theorem2sorry')!;
  t.ok(t2s.description?.startsWith(TOOLS.theorem2sorry.summary), 'the contract summary');
  t.same(t2s.inputSchema.required, ['content'], '`environment` optional over MCP (a default fills it)');
  t.match(t2s.inputSchema.properties?.environment, { type: 'string', description: /Default: the newest available/ });
  t.same(Object.keys(t2s.inputSchema.properties ?? {}).sort(), Object.keys(TOOLS.theorem2sorry.request.shape).sort());
  t.equal(t2s.annotations?.readOnlyHint, true);
  t.ok(t2s.outputSchema?.properties?.content, 'an output schema from the response schema');
  const merge = tools.find((x) => x.name === 'merge')!;
  t.same(merge.inputSchema.required, ['documents']);
});

t.test('tools/call theorem2sorry: the pipeline’s answer and cache, shared with HTTP', async (t) => {
  const { app, client } = await daemonAndClient(t);
  const request = { content: CONTENT, environment: TEST_ENV, reparse: false };
  const r = (await client.callTool({ name: 'theorem2sorry', arguments: request })) as CallToolResult;
  t.notOk(r.isError);
  const http = await app.inject({ method: 'POST', url: '/api/v1/theorem2sorry', payload: request });
  t.equal(http.statusCode, 200);
  t.equal(http.headers['x-cache'], 'hit', 'the MCP call filled the same cache');
  // Equal but for `timings` and `info.request_id`, which are each request's own.
  const { timings: _t1, info: httpInfo, ...viaHttp } = http.json() as Record<string, unknown>;
  const { timings: _t2, info, ...viaMcp } = r.structuredContent as { timings: unknown; info: { request_id: string } };
  t.same(viaMcp, viaHttp, 'the same answer as POST /api/v1/theorem2sorry');
  t.match(info.request_id, /^[0-9a-f-]{36}$/, 'info.request_id, as over HTTP');
  t.not(info.request_id, (httpInfo as { request_id: string }).request_id);
  const share = await app.inject({ method: 'POST', url: '/v1/shared-links', payload: { request_id: info.request_id } });
  t.equal(share.statusCode, 201, 'the MCP call can be shared by its caller');
  t.same(text(r), r.structuredContent, 'and as text for text-only clients');
  const out = (r.structuredContent as { content: string }).content;
  t.ok(out.includes('sorry') && !out.includes('norm_num'), 'the proof replaced');
});

t.test('a 409 (environment cannot run Lean) is a tool error with the HTTP envelope', async (t) => {
  const { app, client } = await daemonAndClient(t);
  const request = { content: CONTENT, environment: UNAVAILABLE_ENV };
  const r = (await client.callTool({ name: 'theorem2sorry', arguments: request })) as CallToolResult;
  t.equal(r.isError, true);
  const http = await app.inject({ method: 'POST', url: '/api/v1/theorem2sorry', payload: request });
  t.equal(http.statusCode, 409);
  const body = text(r);
  t.equal(body.status, 409);
  t.same(body.error, http.json().error, 'the same code and message as HTTP');
  t.match((body.error as { message: string }).message, /"reparse": false/);
});

t.test('invalid arguments are refused as HTTP refuses them; an unknown tool is a protocol error', async (t) => {
  const { client } = await daemonAndClient(t);
  const r = (await client.callTool({ name: 'theorem2sorry', arguments: { content: 'x', bogus: 1 } })) as CallToolResult;
  t.equal(r.isError, true);
  const body = text(r) as { status: number; error: { code: string; details: { field: string }[] } };
  t.equal(body.status, 400);
  t.equal(body.error.code, 'invalid_request');
  t.same(
    body.error.details.map((d) => d.field),
    ['bogus'],
    'no environment: the default one, not a refusal',
  );
  await t.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /unknown tool "no_such_tool"/);
});

t.test('cancellation aborts the run and frees the caller’s slot; progress is notified', async (t) => {
  const { tools, seen, started } = blockingCheck();
  // One anonymous slot: a call that kept it after cancellation would block the next one forever.
  const { client } = await daemonAndClient(t, {
    tools,
    config: testConfig({ server: { mcp: { progressIntervalMs: 0 } } }),
  });
  const ctrl = new AbortController();
  const progress: { progress: number; message?: string }[] = [];
  const call = client.callTool({ name: 'check', arguments: { content: 'x', environment: TEST_ENV } }, undefined, {
    signal: ctrl.signal,
    onprogress: (p) => progress.push(p),
  });
  await started;
  // The notifications travel on the call's own stream; they are read before the cancel is sent.
  for (let i = 0; i < 200 && progress.length < 3; i++) await new Promise((r) => setTimeout(r, 25));
  ctrl.abort('user pressed stop');
  await t.rejects(call);
  // The cancel notification travels as its own POST; wait for the run to see it.
  for (let i = 0; i < 200 && seen.aborted === 0; i++) await new Promise((r) => setTimeout(r, 25));
  t.equal(seen.aborted, 1, 'the tool saw its signal abort');
  t.match(seen.reason, { code: 'cancelled' });
  t.ok(progress.length >= 3, `${progress.length} progress notifications (started, 1/3, 3/3)`);
  t.ok(
    progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress),
    'progress increases',
  );
  t.ok(progress.some((p) => p.message === 'elaborating 3/3'));
  // The slot is free: a second call starts (and is cancelled in turn).
  const ctrl2 = new AbortController();
  const second = client.callTool({ name: 'check', arguments: { content: 'y', environment: TEST_ENV } }, undefined, {
    signal: ctrl2.signal,
  });
  for (let i = 0; i < 200 && seen.started < 2; i++) await new Promise((r) => setTimeout(r, 25));
  t.equal(seen.started, 2, 'the next call was admitted');
  ctrl2.abort();
  await t.rejects(second);
});

t.test('the environments resource is GET /v1/environments', async (t) => {
  const { client } = await daemonAndClient(t);
  const { resources } = await client.listResources();
  t.same(
    resources.map((r) => r.uri),
    [ENVIRONMENTS_URI],
  );
  const read = await client.readResource({ uri: ENVIRONMENTS_URI });
  const listed = JSON.parse((read.contents[0] as { text: string }).text) as unknown;
  // The test environments (test/helpers.ts) as the spec's listing shows them, not as the route computes them.
  t.match(listed, [
    { name: TEST_ENV, lean_toolchain: 'leanprover/lean4:v4.28.0', imports: 'import Mathlib', available: true },
    { name: UNAVAILABLE_ENV, imports: '', available: false, unavailable_reason: 'no Lean toolchain found (test)' },
  ]);
  t.equal((listed as unknown[]).length, 2, 'both environments, no more');
});

t.test('keys: an unknown key is 401 before MCP; a session is its caller’s only', async (t) => {
  const keys = [
    { key: 'alice-key-123', name: 'alice' },
    { key: 'bob-key-12345', name: 'bob' },
  ];
  const app = await makeApp({ config: testConfig({ keys }) });
  t.teardown(() => app.close());
  const url = await listen(app);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: 'Bearer wrong-key-1',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
  });
  t.equal(res.status, 401);
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: 'Bearer alice-key-123' } },
  });
  const alice = new Client({ name: 'alice', version: '0' });
  await alice.connect(transport);
  t.teardown(() => alice.close());
  const sid = transport.sessionId!;
  t.ok(sid);
  const asBob = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: 'Bearer bob-key-12345',
      'mcp-session-id': sid,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
  t.equal(asBob.status, 404, "another caller cannot use alice's session");
  t.equal((await alice.listTools()).tools.length, TOOL_NAMES.length + 1, 'alice still can');
});

t.test(
  'session bounds: the least recently used idle session makes room; a request without a session is 400',
  async (t) => {
    const app = await makeApp({ config: testConfig({ server: { mcp: { maxSessions: 1 } } }) });
    t.teardown(() => app.close());
    const url = await listen(app);
    const first = await connect(url);
    const second = await connect(url);
    t.teardown(() => Promise.all([first.close(), second.close()]));
    await t.rejects(first.listTools(), /Session not found|404/, 'the first, idle, was closed for the second');
    t.equal((await second.listTools()).tools.length, TOOL_NAMES.length + 1);
    const bare = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    t.equal(bare.status, 400);
    t.match(await bare.json(), { jsonrpc: '2.0', error: { code: -32000 } });
  },
);

t.test('session bounds: every session busy refuses a new one with 503 and Retry-After', async (t) => {
  const { tools, started } = blockingCheck();
  const app = await makeApp({ tools, config: testConfig({ server: { mcp: { maxSessions: 1 } } }) });
  t.teardown(() => app.close());
  const url = await listen(app);
  const busy = await connect(url);
  const ctrl = new AbortController();
  const call = busy.callTool({ name: 'check', arguments: { content: 'x', environment: TEST_ENV } }, undefined, {
    signal: ctrl.signal,
  });
  await started;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
    }),
  });
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '2');
  t.match(await res.json(), { error: { code: 'overloaded', message: /maxSessions/ } });
  ctrl.abort();
  await t.rejects(call);
  await busy.close();
});

/** A bare `initialize` over fetch: its status and session id (no client kept). */
async function initialize(url: URL, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
    }),
  });
  await res.text();
  return { status: res.status, sid: res.headers.get('mcp-session-id') };
}

/** tools/list on a session id: the HTTP status (404 once the session is gone). */
async function listStatus(url: URL, sid: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

t.test('sessions per caller: 70 anonymous initialize calls close only anonymous sessions', async (t) => {
  const app = await makeApp({ config: testConfig({ keys: [{ key: 'alice-key-123', name: 'alice' }] }) });
  t.teardown(() => app.close());
  const url = await listen(app);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: 'Bearer alice-key-123' } },
  });
  const alice = new Client({ name: 'alice', version: '0' });
  await alice.connect(transport);
  t.teardown(() => alice.close());
  const sids: string[] = [];
  for (let i = 0; i < 70; i++) {
    const r = await initialize(url);
    t.equal(r.status, 200);
    sids.push(r.sid!);
  }
  t.equal((await alice.listTools()).tools.length, TOOL_NAMES.length + 1, "alice's idle session is still open");
  t.equal(await listStatus(url, sids[0]!), 404, 'the flood closed its own oldest sessions');
  t.equal(await listStatus(url, sids[69]!), 200, 'and keeps its newest');
  const kept = await Promise.all(sids.map((s) => listStatus(url, s)));
  t.equal(kept.filter((s) => s === 200).length, 8, 'an anonymous address holds maxSessionsPerCaller (8)');
});

t.test('a full table takes an idle session only from whoever holds the most, else 503', async (t) => {
  // Open mode: each bearer is a caller of its own.
  const app = await makeApp({ config: testConfig({ server: { mcp: { maxSessions: 4 } } }) });
  t.teardown(() => app.close());
  const url = await listen(app);
  const as = (who: string) => ({ authorization: `Bearer ${who}-bearer-1` });
  const a = await initialize(url, as('a'));
  const x = [await initialize(url, as('x')), await initialize(url, as('x')), await initialize(url, as('x'))];
  t.same([a.status, ...x.map((r) => r.status)], [200, 200, 200, 200]);
  t.equal((await initialize(url, as('y'))).status, 200, 'y takes one of x’s three');
  t.equal((await initialize(url, as('z'))).status, 200, 'z takes another of x’s');
  t.same(
    await Promise.all(x.map((r) => listStatus(url, r.sid!, as('x')))),
    [404, 404, 200],
    "x's least recently used went first",
  );
  const w = await initialize(url, as('w'));
  t.equal(w.status, 503, 'four callers with one session each: none is taken for a fifth');
  t.equal(await listStatus(url, a.sid!, as('a')), 200, "a's only session was never taken");
});

/** A tools/call on a session over fetch: the parsed JSON-RPC answer (JSON or one SSE event). */
async function callOver(url: URL, sid: string, id: number, name: string, args: unknown) {
  const post = () =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
    });
  // fetch keeps the connection of the last call; when the test's own work between two calls outlasts the
  // server's keep-alive timeout (a loaded machine), the server has closed it and the reuse fails with
  // ECONNRESET before any answer: the call never reached the server, so it is sent again, once.
  const res = await post().catch((e: { cause?: { code?: string } }) => {
    if (e.cause?.code !== 'ECONNRESET') throw e;
    return post();
  });
  const body = await res.text();
  const json = res.headers.get('content-type')!.startsWith('text/event-stream')
    ? /^data: (.*)$/m.exec(body)![1]!
    : body;
  return JSON.parse(json) as { id: number; result: CallToolResult };
}

t.test('MCP applies HTTP’s input limits before the SDK reads the arguments', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const url = await listen(app);
  const { sid } = await initialize(url);
  // Counted, and still run (the original is the capture's implementation).
  const runs = t.capture(Pipeline.prototype, 'run', Pipeline.prototype.run);
  const counted = t.capture(Pipeline.prototype, 'checkLimits', Pipeline.prototype.checkLimits);
  const unknownKeys = (n: number) => {
    const args: Record<string, unknown> = { content: 'theorem a : True := trivial', environment: TEST_ENV };
    for (let i = 0; i < n; i++) args[`k${i}`] = 1;
    return args;
  };
  const viaHttp = async (args: unknown) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/theorem2sorry',
        payload: JSON.stringify(args),
        headers: { 'content-type': 'application/json' },
      })
    ).json() as { error: unknown };
  // 300,000 keys (3.4 MB): counted on the raw text, neither parsed nor given to the SDK.
  const big = unknownKeys(300_000);
  const r = await callOver(url, sid!, 7, 'theorem2sorry', big);
  t.equal(r.id, 7);
  t.equal(r.result.isError, true);
  const answer = text(r.result) as { status: number; error: { code: string; message: string } };
  t.equal(answer.status, 400);
  t.same(answer.error, (await viaHttp(big)).error, 'the same error as HTTP');
  t.match(answer.error.message, /more than 100 fields/);
  t.equal(counted().length, 0, 'the raw text was enough: nothing parsed was counted');
  t.equal(runs().length, 0, 'the pipeline never saw the call (the SDK did not read it)');
  // Under 64 KiB the body is parsed, then counted before the SDK reads it.
  const small = unknownKeys(150);
  const s = await callOver(url, sid!, 8, 'theorem2sorry', small);
  t.same((text(s.result) as { error: unknown }).error, (await viaHttp(small)).error);
  t.equal(counted().length, 2, 'counted once for MCP, once for HTTP');
  t.equal(runs().length, 0);
  // A call within the limits still runs.
  const ok = await callOver(url, sid!, 9, 'theorem2sorry', unknownKeys(0));
  t.notOk(ok.result.isError);
  t.equal(runs().length, 1);
});

t.test('no environment: the newest available lean-4.x.y runs the call (AXLE MCP’s default)', async (t) => {
  const environments = [
    { ...testEnvironments[0]!, name: 'lean-4.9.0' },
    { ...testEnvironments[0]!, name: 'lean-4.30.0' },
    { ...testEnvironments[1]!, name: 'lean-4.31.0' },
  ];
  const available = new Set(['lean-4.9.0', 'lean-4.30.0']);
  const { app, client } = await daemonAndClient(t, {
    config: testConfig({ environments }),
    probe: (cfg) => (available.has(cfg.name) ? { available: true } : { available: false, reason: 'absent (test)' }),
  });
  const r = (await client.callTool({
    name: 'theorem2sorry',
    arguments: { content: CONTENT, reparse: false },
  })) as CallToolResult;
  t.notOk(r.isError, JSON.stringify(r.content));
  const http = await app.inject({
    method: 'POST',
    url: '/api/v1/theorem2sorry',
    payload: { content: CONTENT, environment: 'lean-4.30.0', reparse: false },
  });
  t.equal(
    http.headers['x-cache'],
    'hit',
    'the call ran on lean-4.30.0: newest available, not 4.31.0 (unavailable) nor 4.9.0',
  );
  const listed = (await client.callTool({ name: ENVIRONMENTS_TOOL, arguments: {} })) as CallToolResult;
  t.notOk(listed.isError);
  const body = listed.structuredContent as { environments: { name: string }[]; default: string };
  t.same(
    body.environments.map((e) => e.name),
    ['lean-4.9.0', 'lean-4.30.0', 'lean-4.31.0'],
    'list_environments: the resource’s listing',
  );
  t.equal(body.default, 'lean-4.30.0', 'and the default it picks');
  const explicit = (await client.callTool({
    name: 'theorem2sorry',
    arguments: { content: CONTENT, environment: 'lean-4.31.0' },
  })) as CallToolResult;
  t.equal(explicit.isError, true, 'a named environment is used as named');
  const err = text(explicit) as { status: number; error: { code: string; message: string } };
  t.equal(err.status, 409);
  t.match(
    err.error.message,
    /absent \(test\)/,
    'the daemon’s own message and reason reach the agent, not only the status',
  );
});
