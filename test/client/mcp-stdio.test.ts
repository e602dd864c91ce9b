/**
 * `lean-tool mcp`: the stdio relay to a running daemon's /mcp, driven by the official SDK's
 * Client over a pair of streams (as a local agent drives the command's stdin and stdout).
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { serveMcpStdio } from '../../src/client/mcp-stdio.ts';
import { parseArgs } from '../../src/client/cli.ts';
import { TOOL_NAMES } from '../../src/contract/tools.ts';
import { ENVIRONMENTS_TOOL } from '../../src/server/adapters/mcp-tools.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';
import { blockingCheck } from '../helpers/blocking-check.ts';
import { listenLoopback } from '../helpers/loopback.ts';

/** The client end of a stdio pipe pair (what StdioClientTransport does over a child's stdio). */
class StreamClientTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  readonly #buf = new ReadBuffer();
  constructor(
    private readonly from: Readable,
    private readonly to: Writable,
  ) {}
  async start() {
    this.from.on('data', (chunk: Buffer) => {
      this.#buf.append(chunk);
      for (let m = this.#buf.readMessage(); m; m = this.#buf.readMessage()) this.onmessage?.(m);
    });
  }
  async send(m: JSONRPCMessage) {
    this.to.write(serializeMessage(m));
  }
  async close() {
    this.to.end();
    this.onclose?.();
  }
}

const baseUrl = async (app: FastifyInstance) => (await listenLoopback(app)).http;

function relay(url: string) {
  const input = new PassThrough();
  const output = new PassThrough();
  const log: string[] = [];
  const done = serveMcpStdio({ url, input, output, log: (l) => log.push(l) });
  const client = new Client({ name: 'stdio-test', version: '0' });
  return { client, transport: new StreamClientTransport(output, input), done, log, input, output };
}

t.test('`mcp` is a command of the CLI', async (t) => {
  const p = parseArgs(['--url', 'http://x:1', 'mcp']);
  t.equal(p.command, 'mcp');
  t.equal(p.url, 'http://x:1');
});

t.test('over stdio: the daemon’s tools, a call, cancellation; closing stdin ends the relay', async (t) => {
  const { tools, seen, started } = blockingCheck();
  const app = await makeApp({ tools });
  t.teardown(() => app.close());
  const r = relay(await baseUrl(app));
  await r.client.connect(r.transport);
  const { tools: listed } = await r.client.listTools();
  t.same(listed.map((x) => x.name).sort(), [...TOOL_NAMES, ENVIRONMENTS_TOOL].sort());
  const request = { content: 'theorem foo : True := by\n  trivial\n', environment: TEST_ENV, reparse: false };
  const res = (await r.client.callTool({ name: 'theorem2sorry', arguments: request })) as CallToolResult;
  t.notOk(res.isError);
  // theorem2sorry's rule (spec: the proof of each selected theorem becomes `sorry`; with ignore_imports, the
  // default, the content carries the environment's header), not the daemon's own HTTP answer.
  t.equal(
    (res.structuredContent as { content: string }).content,
    'import Mathlib\n\ntheorem foo : True := sorry\n',
    'the daemon’s answer',
  );
  const ctrl = new AbortController();
  const call = r.client.callTool({ name: 'check', arguments: { content: 'x', environment: TEST_ENV } }, undefined, {
    signal: ctrl.signal,
  });
  await started;
  ctrl.abort();
  await t.rejects(call);
  for (let i = 0; i < 200 && seen.aborted === 0; i++) await new Promise((res) => setTimeout(res, 25));
  t.equal(seen.aborted, 1, 'the cancel reached the daemon through the relay');
  await r.client.close();
  t.equal(await r.done, 0, 'the relay ends when its input does');
});

t.test('no daemon: requests are answered with an error that says how to start one', async (t) => {
  // A port nothing listens on: listen, note it, close.
  const app = await makeApp();
  const url = await baseUrl(app);
  await app.close();
  const r = relay(url);
  await t.rejects(r.client.connect(r.transport), /cannot reach the lean-tool daemon at .*\/mcp .*npm start/);
  r.input.end();
  t.equal(await r.done, 0);
  t.ok(
    r.log.some((l) => l.includes('/mcp')),
    'said on stderr too',
  );
});

t.test('messages written before the initialize is answered wait for the session', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r = relay(await baseUrl(app));
  const answers: JSONRPCMessage[] = [];
  const buf = new ReadBuffer();
  r.output.on('data', (c: Buffer) => {
    buf.append(c);
    for (let m = buf.readMessage(); m; m = buf.readMessage()) answers.push(m);
  });
  // All at once, as a client that pipelines would write them.
  r.input.write(
    [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ]
      .map((m) => `${JSON.stringify(m)}\n`)
      .join(''),
  );
  for (let i = 0; i < 400 && answers.length < 2; i++) await new Promise((res) => setTimeout(res, 25));
  const list = answers.find((m) => 'id' in m && m.id === 2) as { result?: { tools: unknown[] } } | undefined;
  t.equal(list?.result?.tools.length, TOOL_NAMES.length + 1, 'tools/list answered in the session');
  r.input.end();
  t.equal(await r.done, 0);
});
