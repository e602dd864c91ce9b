/**
 * Issue 29 item 9, first contact: a busy port is one line naming PORT; a malformed body's
 * message names the content type it really came with; the 409 names the CLI's --no-reparse;
 * `lean-tool <command> --help` prints that command's options; the WebSocket refuses a request
 * for an environment that cannot run Lean without announcing it as queued.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { main } from '../../src/client/cli.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { listenErrorLine } from '../../src/server/listen-error.ts';
import { makeApp, UNAVAILABLE_ENV } from '../helpers.ts';
import { listenLoopback, openStreamSocket } from '../helpers/loopback.ts';
import { TS_LOADER } from '../ts-loader.ts';

t.test('a busy port: one line naming PORT, exit 1, no stack trace', async (t) => {
  const busy = net.createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  t.teardown(() => busy.close());
  const port = (busy.address() as net.AddressInfo).port;
  const home = mkdtempSync(path.join(os.tmpdir(), 'busy-'));
  const child = spawn(process.execPath, [...TS_LOADER, path.join(PROJECT_ROOT, 'src', 'main.ts')], {
    cwd: PROJECT_ROOT,
    env: { PATH: '/usr/bin:/bin', HOME: home, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  t.equal(code, 1);
  const lines = stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line: ${stderr}`);
  t.match(lines[0], new RegExp(`port ${port} is already in use.*set PORT`));
  t.notMatch(stderr, /\n\s+at /, 'no stack trace');
  t.match(listenErrorLine({ code: 'EACCES' }, '0.0.0.0', 80), /permission denied.*PORT/);
  t.equal(listenErrorLine(new Error('other'), 'h', 1), undefined, 'anything else keeps the full log');
});

t.test('a malformed body: the message names the content type it was sent with', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  for (const [type, said] of [
    ['text/plain', 'sent as text/plain'],
    ['application/x-www-form-urlencoded', 'sent as application/x-www-form-urlencoded'],
    ['application/json; charset=utf-8', 'sent as application/json,'],
  ] as const) {
    const r = await app.inject({
      method: 'POST',
      url: '/api/v1/check',
      headers: { 'content-type': type },
      payload: '{"content": x',
    });
    t.equal(r.statusCode, 400);
    t.equal(r.json().error.code, 'malformed_json');
    t.match(r.json().error.message, said);
    t.notMatch(r.json().error.message, type === 'text/plain' ? /application\/json/ : /text\/plain/, type);
    t.match(r.json().error.message, /Unexpected token/, "JSON's own reason");
  }
});

t.test('the 409 names the CLI\'s --no-reparse beside "reparse": false', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r = await app.inject({
    method: 'POST',
    url: '/api/v1/theorem2sorry',
    payload: { content: 'theorem a : 1 = 1 := rfl', environment: UNAVAILABLE_ENV },
  });
  t.equal(r.statusCode, 409);
  t.match(r.json().error.message, '"reparse": false (lean-tool: --no-reparse)');
});

t.test('lean-tool <command> --help prints that command, its options and their defaults', async (t) => {
  let out = '';
  const io = { stdin: () => '', stdout: (s: string) => (out += s), stderr: () => {}, env: {}, isTTY: false };
  t.equal(await main(['theorem2sorry', '--help'], io), 0);
  t.match(out, /^usage: lean-tool theorem2sorry FILE\|-/);
  t.match(out, 'Replace theorem proofs with sorry.');
  t.match(out, /--reparse \/ --no-reparse\s+\(default: true\)/);
  t.match(out, '--indices 0,-1');
  t.match(out, /--environment NAME\s+\(required; or set SERVICE_ENVIRONMENT\)/);
  t.notMatch(out, '--target', 'only its own options');
  out = '';
  t.equal(await main(['verify-proof', '-h'], io), 0);
  t.match(out, 'usage: lean-tool verify-proof STATEMENT PROOF');
  t.match(out, /--verify-negation \/ --no-verify-negation\s+\(default: false\)/);
  out = '';
  t.equal(await main(['--help'], io), 0);
  t.match(out, /^usage: lean-tool \[--url URL\]/, 'no command: the general help');
});

t.test('WebSocket: an unavailable environment is refused without a queued event', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await listenLoopback(app);
  const { ws, events } = await openStreamSocket(app);
  ws.send(JSON.stringify({ id: 'n', tool: 'check', request: { content: 'def a := 1', environment: UNAVAILABLE_ENV } }));
  while (!events.some((e) => e.event === 'error')) await new Promise((r) => setTimeout(r, 10));
  ws.close();
  t.same(
    events.map((e) => e.event),
    ['error'],
    'the refusal alone, no queued before it',
  );
  t.match(events[0], { id: 'n', error: { code: 'environment_unavailable' } });
});
