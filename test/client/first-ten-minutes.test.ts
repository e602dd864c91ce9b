/**
 * A newcomer's first commands: `verify-proof --help` shows one form (STATEMENT PROOF), the documented
 * CLI command is the direct one (not `npx lean-tool`, which has npm resolve it on every call), and
 * the best-first-search example without Lean or without a daemon ends with one line and exit 1,
 * not an uncaught stack trace.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { main } from '../../src/client/cli.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { makeApp, UNAVAILABLE_ENV } from '../helpers.ts';
import { listenLoopback } from '../helpers/loopback.ts';
import { TS_LOADER } from '../ts-loader.ts';

t.test('verify-proof and comparator --help: STATEMENT is the positional, not also a required flag', async (t) => {
  for (const cmd of ['verify-proof', 'comparator']) {
    let out = '';
    const io = { stdin: () => '', stdout: (s: string) => (out += s), stderr: () => {}, env: {}, isTTY: false };
    t.equal(await main([cmd, '--help'], io), 0);
    t.match(out, `usage: lean-tool ${cmd} STATEMENT PROOF`);
    t.notMatch(out, '--formal-statement', `${cmd}: one form`);
  }
});

t.test('the README and docs/client.md run the CLI directly, not through npx', async (t) => {
  for (const file of ['README.md', 'docs/client.md']) {
    const text = readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
    t.notMatch(text, /^\s*(?:\S.*\| )?npx lean-tool/m, `${file}: no command line starting npx lean-tool`);
    t.match(text, 'node bin/lean-tool.js', file);
  }
});

const run = promisify(execFile);

async function example(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  const file = path.join(PROJECT_ROOT, 'examples', 'best-first-search.ts');
  try {
    await run(process.execPath, [...TS_LOADER, file], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...env } });
    return { code: 0, stderr: '' };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, stderr: err.stderr };
  }
}

t.test('best-first-search on an environment that cannot run Lean: one line, exit 1', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const { http } = await listenLoopback(app);
  const r = await example({ SERVICE_API_URL: http, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV });
  t.equal(r.code, 1);
  t.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  t.match(r.stderr, /^best-first-search: proof search needs Lean: .*cannot run Lean.*npm run lean:setup/);
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

t.test('best-first-search without a daemon: one line naming the URL, exit 1', async (t) => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const r = await example({ SERVICE_API_URL: `http://127.0.0.1:${port}` });
  t.equal(r.code, 1);
  t.match(r.stderr.trim(), new RegExp(`^best-first-search: no daemon at http://127\\.0\\.0\\.1:${port}: start it`));
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
});
