/**
 * `npm start`'s path: prestart builds dist/ (the daemon's bundle, dist/daemon.cjs, and its
 * loader, dist/main.js) and it serves like src/main.ts, with V8's code cache written by the
 * first start of a build and used by the next (scripts/code-cache.mjs). The only test file
 * that starts dist/main.js: its tests run one after another, so none sees another's cache write.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';
import { startDaemonProcess } from '../helpers/daemon-process.ts';

const MAIN = path.join(PROJECT_ROOT, 'dist', 'main.js');
const CACHE = path.join(PROJECT_ROOT, 'dist', 'daemon.cjs.cache');

/** `npm start`'s prestart, run once for the file (by its first test: a root `t.before` cannot be scoped to one file in a grouped run). */
let built: string | undefined;
function buildOnce(): void {
  built ??= (() => {
    const build = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build-if-stale.mjs')], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`prestart build failed: ${build.stderr}`);
    return 'built';
  })();
}

/** The header a cache of this build for this Node carries: the bundle's first line, the Node version and arch. */
function expectedHeader(): string {
  const bundle = readFileSync(path.join(PROJECT_ROOT, 'dist', 'daemon.cjs'), 'utf8');
  return `${bundle.slice(0, bundle.indexOf('\n'))} node ${process.version} ${process.arch}\n`;
}

/** Waits (up to 20 s) until the cache file holds this build's header. */
async function cacheWritten(): Promise<boolean> {
  const header = expectedHeader();
  for (let i = 0; i < 400; i++) {
    if (existsSync(CACHE) && readFileSync(CACHE).subarray(0, header.length).toString() === header) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function stop(child: { kill: (s: NodeJS.Signals) => boolean }): Promise<number> {
  child.kill('SIGTERM');
  const [code] = (await once(child as never, 'exit')) as [number];
  return code;
}

t.test('the built daemon starts, answers, writes its code cache and drains', async (t) => {
  buildOnce();
  t.ok(existsSync(MAIN));
  rmSync(CACHE, { force: true });
  t.match(
    readFileSync(path.join(PROJECT_ROOT, 'dist', 'daemon.cjs'), 'utf8'),
    /^\/\/ lean-tool-service build [0-9a-f]{16}\n/,
  );
  const { child, port, output } = await startDaemonProcess(t, [MAIN]);
  const envs = (await (await fetch(`http://127.0.0.1:${port}/v1/environments`)).json()) as {
    name: string;
    available: boolean;
  }[];
  t.ok(
    envs.length >= 1 && envs.every((e) => typeof e.available === 'boolean'),
    'environments listed with availability',
  );
  const bad = await fetch(`http://127.0.0.1:${port}/api/v1/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"content": 1}',
  });
  t.equal(bad.status, 400, 'validation works in the bundle');
  // The container has only dist/: the pages /v1/docs serves are copied there (src/server/doc-pages.ts).
  t.equal(
    readFileSync(path.join(PROJECT_ROOT, 'dist', 'site', 'docs', 'errors.md'), 'utf8'),
    readFileSync(path.join(PROJECT_ROOT, 'docs', 'errors.md'), 'utf8'),
  );
  const pages = await fetch(`http://127.0.0.1:${port}/v1/docs/pages.json`);
  t.equal(pages.status, 200, '/v1/docs from the bundle');
  t.ok(
    await cacheWritten(),
    'the code cache is written once the daemon listens, keyed by the build and the Node binary',
  );
  t.equal(await stop(child), 0);
  t.match(output(), /"msg":"stopped"/, 'the asynchronous log is flushed before exit');
});

t.test('the next start uses the code cache and serves the same', async (t) => {
  buildOnce();
  const written = statSync(CACHE);
  const { child, port } = await startDaemonProcess(t, [MAIN]);
  const docs = await fetch(`http://127.0.0.1:${port}/docs/json`);
  t.equal(docs.status, 200, 'the docs packages (loaded at the first /docs request) load from the cached script');
  t.match(await docs.json(), { openapi: /^3\./ });
  const bad = await fetch(`http://127.0.0.1:${port}/api/v1/check`, { method: 'POST', body: '{"content": 1}' });
  t.equal(bad.status, 400, 'validation works from the cache');
  t.equal(await stop(child), 0);
  const after = statSync(CACHE);
  t.same([after.ino, after.mtimeMs], [written.ino, written.mtimeMs], 'accepted: not written again');
});

/** The cache file's data checks against the sha256 line after its header. */
function checksumHolds(header: string): boolean {
  const file = readFileSync(CACHE);
  const rest = file.subarray(header.length);
  const line = rest.subarray(0, rest.indexOf(10) + 1).toString();
  const data = rest.subarray(line.length);
  return line === `sha256 ${createHash('sha256').update(data).digest('hex')}\n`;
}

t.test('a damaged cache is not given to V8: the daemon starts, says so, and writes it anew', async (t) => {
  buildOnce();
  const header = expectedHeader();
  t.ok(checksumHolds(header), "the previous start's cache carries its checksum");
  // A few hundred bytes damaged inside the data, as a torn write or a bad sector would (V8 itself
  // checks only the version, flags and source length: given these, node crashed at every start).
  const damaged = readFileSync(CACHE);
  const at = Math.floor(damaged.length / 2);
  for (let i = at; i < at + 300; i++) damaged[i] = (damaged[i]! * 31 + i) & 0xff;
  writeFileSync(CACHE, damaged);
  t.notOk(checksumHolds(header));
  const { child, port, errors } = await startDaemonProcess(t, [MAIN]);
  t.equal((await fetch(`http://127.0.0.1:${port}/v1/environments`)).status, 200, 'it started and serves');
  t.match(errors(), /code cache .*daemon\.cjs\.cache is damaged .*not used, written anew/, 'and says why');
  for (let i = 0; i < 400 && !checksumHolds(header); i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(checksumHolds(header), 'the cache is written anew, valid');
  t.equal(await stop(child), 0);
});

t.test("a cache of another build is not used: it is replaced by this build's", async (t) => {
  buildOnce();
  writeFileSync(CACHE, '// lean-tool-service build 0123456789abcdef node v0 x\nnot V8 data');
  const { child, port } = await startDaemonProcess(t, [MAIN]);
  t.equal((await fetch(`http://127.0.0.1:${port}/v1/environments`)).status, 200);
  t.ok(await cacheWritten(), 'rewritten for this build');
  t.equal(await stop(child), 0);
});

t.test('the CLI runs its bundle with a code cache too, written by its first call', async (t) => {
  buildOnce();
  const cliCache = path.join(PROJECT_ROOT, 'dist', 'cli.cjs.cache');
  rmSync(cliCache, { force: true });
  const version = () =>
    spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'lean-tool.js'), '--version'], { encoding: 'utf8' });
  const first = version();
  t.match(first.stdout, /^lean-tool \d+\.\d+\.\d+/);
  const bundle = readFileSync(path.join(PROJECT_ROOT, 'dist', 'cli.cjs'), 'utf8');
  const header = `${bundle.slice(0, bundle.indexOf('\n'))} node ${process.version} ${process.arch}\n`;
  t.equal(readFileSync(cliCache).subarray(0, header.length).toString(), header, 'written, keyed by its build');
  const second = version();
  t.same([second.status, second.stdout], [0, first.stdout], 'the next call answers the same from the cache');
});

/** What a caller of the built daemon sees for a few requests: status and body bytes (request ids masked). */
async function answers(port: number): Promise<string[]> {
  const out: string[] = [];
  for (const [url, body] of [
    ['/v1/environments', undefined],
    ['/api/v1/check', '{"content": 1}'],
  ] as const) {
    const r = await fetch(`http://127.0.0.1:${port}${url}`, {
      method: body ? 'POST' : 'GET',
      ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
    });
    const text = (await r.text()).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'id');
    out.push(`${r.status} ${r.headers.get('content-type')} ${text}`);
  }
  return out;
}

t.test(
  'fastPaths.codeCache off: Node compiles the bundle, no cache is read or written, the same answers',
  async (t) => {
    buildOnce();
    const on = await startDaemonProcess(t, [MAIN]);
    const withCache = await answers(on.port);
    t.equal(await stop(on.child), 0);
    rmSync(CACHE, { force: true });
    const overlay = path.join(PROJECT_ROOT, 'dist', `fast-paths-off.${process.pid}.json`);
    writeFileSync(overlay, JSON.stringify({ fastPaths: { codeCache: false } }));
    t.teardown(() => rmSync(overlay, { force: true }));
    const off = await startDaemonProcess(t, [MAIN], { LEAN_TOOL_CONFIG: overlay });
    t.same(await answers(off.port), withCache, 'same status, type and bytes');
    // The cache path writes its cache once the daemon listens (the first test): by now it would be there.
    await new Promise((r) => setTimeout(r, 500));
    t.equal(await stop(off.child), 0);
    t.notOk(existsSync(CACHE), 'no cache written');
  },
);
