/**
 * The hand-written fast paths (config `fastPaths`, docs/hot-paths.md#fast-paths-and-when-they-go):
 * each switched off takes its plain path, and both answer the same request with the same status,
 * headers and body bytes (a per-request id and measured timings aside). Each test also shows
 * which path ran, so a switch that did nothing would fail. The retirement conditions are checked
 * last: a test fails the day one is met (or its re-check date has passed).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, copyFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { commandResponse } from '../src/backend/protocol/schema.ts';
import { ResultCache } from '../src/cache/result-cache.ts';
import { codeCacheSetting } from '../src/config-files.ts';
import { PROJECT_ROOT, type ConfigInput } from '../src/config.ts';
import {
  deadlineSignal,
  plainDeadlineSignal,
  useDeadlineSignalTimer,
  type DeadlineSignal,
} from '../src/util/timeout-signal.ts';
import { buildApp, type AppOptions } from '../src/app.ts';
import { fakeLaunch } from './backend/fake.ts';
import { checkResult, TEST_ENV, testConfig, testProbe, validRequest } from './helpers.ts';

type FastPaths = NonNullable<ConfigInput['fastPaths']>;
const KEY = 'fast-paths-key-1';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function post(port: number, tool: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: `/api/v1/${tool}`,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${KEY}`,
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A listening daemon over the fake REPL with these fast paths, and the requests fastify's handlers saw. */
async function daemon(t: Test, fastPaths: FastPaths, tools?: AppOptions['tools']) {
  const app = await buildApp({
    logger: false,
    probe: testProbe,
    launch: () => fakeLaunch(),
    ...(tools ? { tools } : {}),
    config: testConfig({ keys: [{ key: KEY }], fastPaths }),
  });
  t.teardown(() => app.close());
  const handled: string[] = [];
  app.addHook('preHandler', async (request) => void handled.push(request.url));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.server.address() as net.AddressInfo).port, handled };
}

/** Every header in the order sent, but the clock's. */
const HEADERS = (h: string) => h !== 'date';

/**
 * What must be the same on both paths: status, the headers that matter and the body bytes, with
 * the request id (36 characters of its own per request) masked and, where `timings` are measured
 * per run (a miss), their digits too (then content-length is checked against the body instead).
 */
function comparable(a: Answer, measured: boolean) {
  let text = a.body.toString('utf8').replace(/"request_id":"[0-9a-f-]{36}"/g, `"request_id":"${'x'.repeat(36)}"`);
  if (measured) text = text.replace(/"timings":\{[^}]*\}/g, (m) => m.replace(/\d+/g, '0'));
  const headers = Object.keys(a.headers)
    .filter(HEADERS)
    .map((h) => `${h}: ${measured && h === 'content-length' ? 'n' : String(a.headers[h])}`);
  if (measured) headers.push(`content-length is the body's: ${a.headers['content-length'] === String(a.body.length)}`);
  return { status: a.status, headers, body: text };
}

const CHECK = JSON.stringify(validRequest('check'));
const SORRY = JSON.stringify({ ...validRequest('theorem2sorry'), reparse: false });

t.test('hitFront: a hit answered by fastify’s route is the front’s, byte for byte', async (t) => {
  const answers = [];
  for (const hitFront of [true, false]) {
    const d = await daemon(t, { hitFront });
    const run = [await post(d.port, 'theorem2sorry', SORRY), await post(d.port, 'theorem2sorry', SORRY)];
    t.equal(run[1]!.headers['x-cache'], 'hit', `hitFront ${hitFront}: the second is a hit`);
    t.equal(
      d.handled.length,
      hitFront ? 1 : 2,
      `hitFront ${hitFront}: the hit ${hitFront ? 'did not reach' : 'reached'} fastify`,
    );
    answers.push({ miss: comparable(run[0]!, true), hit: comparable(run[1]!, false) });
  }
  t.strictSame(answers[1], answers[0], 'same status, headers and bytes on both paths');
});

t.test('knownBodies: repeated hits without it are the same bytes, each body hashed again', async (t) => {
  const rawKey = ResultCache.prototype.rawKey;
  t.teardown(() => void (ResultCache.prototype.rawKey = rawKey));
  const answers = [];
  const keys: number[] = [];
  for (const knownBodies of [true, false]) {
    let made = 0;
    ResultCache.prototype.rawKey = function (this: ResultCache, ...a: Parameters<typeof rawKey>) {
      made++;
      return rawKey.apply(this, a);
    };
    const d = await daemon(t, { knownBodies });
    const run = [];
    for (let i = 0; i < 4; i++) run.push(await post(d.port, 'check', CHECK));
    t.same(
      run.map((a) => a.headers['x-cache']),
      ['miss', 'hit', 'hit', 'hit'],
    );
    keys.push(made);
    answers.push(run.map((a, i) => comparable(a, i === 0)));
  }
  t.strictSame(answers[1], answers[0], 'same status, headers and bytes on both paths');
  t.equal(keys[1]! - keys[0]!, 2, `the two repeats after the first hit are known without a key (${keys.join(' vs ')})`);
});

t.test('replAnswerByHand: a miss read by zod alone answers the same bytes', async (t) => {
  const parse = commandResponse.parse.bind(commandResponse);
  t.teardown(() => void (commandResponse.parse = parse));
  const answers = [];
  const byZod: number[] = [];
  for (const replAnswerByHand of [true, false]) {
    let n = 0;
    commandResponse.parse = ((v: unknown) => (n++, parse(v))) as typeof parse;
    const d = await daemon(t, { replAnswerByHand });
    const miss = await post(d.port, 'check', CHECK);
    t.equal(miss.headers['x-cache'], 'miss');
    byZod.push(n);
    answers.push(comparable(miss, true));
  }
  t.strictSame(answers[1], answers[0], 'same status, headers and bytes on both paths');
  t.equal(byZod[0], 0, 'on: the REPL’s answers were read by hand');
  t.ok(byZod[1]! > 0, `off: zod read them (${byZod[1]} answers)`);
});

/** A check that records its signal's class and, for content "slow", waits for the signal. */
function signalTool(seen: string[]) {
  return {
    check: {
      needsLean: () => false,
      run: async (req: { content: string }, ctx: { signal: AbortSignal }) => {
        seen.push(ctx.signal.constructor.name);
        if (req.content === 'slow')
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return checkResult(req.content);
      },
    },
  };
}

t.test('lightAbortController: Node’s controller answers the same 200 and the same 504', async (t) => {
  const answers = [];
  const seen: string[][] = [];
  for (const lightAbortController of [true, false]) {
    const s: string[] = [];
    const d = await daemon(t, { lightAbortController }, signalTool(s));
    const quick = await post(d.port, 'check', JSON.stringify({ content: 'quick', environment: TEST_ENV }));
    const slow = await post(
      d.port,
      'check',
      JSON.stringify({ content: 'slow', environment: TEST_ENV, timeout_seconds: 0.2 }),
    );
    t.equal(slow.status, 504);
    seen.push(s);
    answers.push([comparable(quick, true), comparable(slow, true)]);
  }
  t.strictSame(answers[1], answers[0], 'same status, headers and bytes on both paths');
  t.same(seen, [
    ['RequestAbortSignal', 'RequestAbortSignal'],
    ['AbortSignal', 'AbortSignal'],
  ]);
});

/** What a deadline signal did: its state once settled, as a record both implementations must share. */
async function outcome(make: () => DeadlineSignal, settle: (d: DeadlineSignal) => Promise<void> | void) {
  const d = make();
  const events: string[] = [];
  d.signal.addEventListener('abort', (e) => events.push(e.type));
  await settle(d);
  const reason = d.signal.reason as { name?: string; message?: string } | string | undefined;
  const r = {
    aborted: d.signal.aborted,
    events,
    timedOut: d.timedOut,
    reason: typeof reason === 'object' ? [reason.name, reason.message] : reason,
  };
  d.clear();
  return r;
}

t.test('deadlineSignal: the plain AbortSignal.any path ends the same way in every case', async (t) => {
  for (const [name, make] of [
    ['own timer', deadlineSignal],
    ['plain', plainDeadlineSignal],
  ] as const) {
    const parent = new AbortController();
    const cases = {
      time: await outcome(
        () => make(parent.signal, 20),
        () => sleep(80),
      ),
      noParent: await outcome(
        () => make(undefined, 20),
        () => sleep(80),
      ),
      parent: await outcome(
        () => make(parent.signal, 10_000),
        () => parent.abort(new Error('client gone')),
      ),
      early: await outcome(
        () => make(AbortSignal.abort('before'), 10_000),
        () => {},
      ),
      running: await outcome(
        () => make(new AbortController().signal, 10_000),
        () => {},
      ),
    };
    t.strictSame(
      cases,
      {
        time: {
          aborted: true,
          events: ['abort'],
          timedOut: true,
          reason: ['TimeoutError', 'The operation was aborted due to timeout'],
        },
        noParent: {
          aborted: true,
          events: ['abort'],
          timedOut: true,
          reason: ['TimeoutError', 'The operation was aborted due to timeout'],
        },
        parent: { aborted: true, events: ['abort'], timedOut: false, reason: ['Error', 'client gone'] },
        early: { aborted: true, events: [], timedOut: false, reason: 'before' },
        running: { aborted: false, events: [], timedOut: false, reason: undefined },
      },
      name,
    );
  }
});

t.test('deadlineSignal: the process-wide switch picks the path (the plain one cannot leave its parent)', async (t) => {
  t.teardown(() => useDeadlineSignalTimer(true));
  const leftAfterClear = (on: boolean) => {
    useDeadlineSignalTimer(on);
    const parent = new AbortController();
    const d = deadlineSignal(parent.signal, 10_000);
    d.clear();
    parent.abort();
    return !d.signal.aborted;
  };
  t.same([leftAfterClear(true), leftAfterClear(false)], [true, false]);
});

/** The code cache's loader, a script outside the TypeScript sources. */
async function codeCache(): Promise<{
  runBundle: (file: string, o?: { cache?: boolean }) => { exports: { answer: () => Buffer }; saveCache: () => void };
}> {
  return (await import(pathToFileURL(path.join(PROJECT_ROOT, 'scripts', 'code-cache.mjs')).href)) as never;
}

t.test('codeCache: a bundle required by Node answers what it answers from the cache', async (t) => {
  const { runBundle } = await codeCache();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fast-paths-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const source = [
    '// lean-tool-service build 0123456789abcdef',
    '"use strict";',
    'exports.answer = () => Buffer.from(JSON.stringify({ ok: [1, 2, 3], at: __filename.endsWith(".cjs") }));',
    '',
  ].join('\n');
  for (const f of ['cached.cjs', 'plain.cjs']) writeFileSync(path.join(dir, f), source);
  const cached = path.join(dir, 'cached.cjs');
  const first = runBundle(cached);
  first.saveCache();
  t.ok(existsSync(`${cached}.cache`), 'the cache path wrote its cache');
  const written = readFileSync(`${cached}.cache`);
  copyFileSync(cached, path.join(dir, 'again.cjs'));
  copyFileSync(`${cached}.cache`, path.join(dir, 'again.cjs.cache'));
  const fromCache = runBundle(path.join(dir, 'again.cjs'));
  fromCache.saveCache();
  t.ok(
    readFileSync(path.join(dir, 'again.cjs.cache')).equals(written),
    'the second run read the cache (nothing rewritten)',
  );
  const plain = runBundle(path.join(dir, 'plain.cjs'), { cache: false });
  plain.saveCache();
  t.notOk(existsSync(path.join(dir, 'plain.cjs.cache')), 'the plain path reads and writes no cache');
  t.ok(plain.exports.answer().equals(fromCache.exports.answer()), 'same bytes');
  t.ok(plain.exports.answer().equals(first.exports.answer()), 'same bytes');
});

t.test('codeCache: the loader reads the switch from the configuration’s files', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fast-paths-config-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'config'));
  const write = (f: string, v: unknown) => writeFileSync(path.join(root, 'config', f), JSON.stringify(v));
  write('default.json', { fastPaths: { codeCache: true, hitFront: true } });
  t.equal(codeCacheSetting({}, root), true, 'the default');
  write('local.json', { fastPaths: { codeCache: false } });
  t.equal(codeCacheSetting({}, root), false, 'config/local.json turns it off');
  write('other.json', { fastPaths: { codeCache: true } });
  t.equal(
    codeCacheSetting({ LEAN_TOOL_CONFIG: path.join(root, 'config', 'other.json') }, root),
    true,
    'LEAN_TOOL_CONFIG first',
  );
  t.equal(
    codeCacheSetting({ LEAN_TOOL_CONFIG: path.join(root, 'nowhere.json') }, root),
    true,
    'unreadable: on (the daemon says why)',
  );
});

// --- Retirement: each condition in docs/hot-paths.md, checked where it can be. ---

const engines = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;
/** engines.node's minimum version, [major, minor, patch] (a `>=x.y[.z]` range). */
const minimumNode = (): number[] => {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.trim());
  if (!m) throw new Error(`engines.node is not a >= range: ${engines}`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
};
const atLeast = (v: number[], w: number[]) => v[0]! - w[0]! || v[1]! - w[1]! || v[2]! - w[2]!;

t.test('retirement: the code cache stays while engines.node allows a Node before 22.8.0', async (t) => {
  t.ok(
    atLeast(minimumNode(), [22, 8, 0]) < 0,
    `engines.node ${engines}: at ≥ 22.8.0 retire scripts/code-cache.mjs for module.enableCompileCache`,
  );
});

const onMinimumNode = Number(process.versions.node.split('.')[0]) === minimumNode()[0];
t.test(
  'retirement: the deadline signal stays while the minimum Node loses AbortSignal.any’s timeout at a GC',
  {
    skip: onMinimumNode
      ? false
      : `runs on engines.node's minimum major (${engines}), not Node ${process.versions.node}`,
  },
  async (t) => {
    // In a child of its own (under tap's harness the source survived the GC), the GC from a later
    // macrotask (none of the creating frame's handles left). The timeout is long (2 s) so that on a
    // loaded machine the GC still comes before it would fire: the outcome rests on order, not speed. The plain path's call, its timeout
    // held by nothing but the composite; and, as a control, the same with the timeout held.
    const run = (held: boolean) =>
      spawnSync(
        process.execPath,
        [
          '--expose-gc',
          '-e',
          `let fired = false;
          ${held ? 'const held = AbortSignal.timeout(2000);' : ''}
          AbortSignal.any([new AbortController().signal, ${held ? 'held' : 'AbortSignal.timeout(2000)'}])
            .addEventListener('abort', () => (fired = true));
          setImmediate(() => { gc(); setTimeout(() => { gc(); setTimeout(() => process.stdout.write(String(fired)), 2500); }, 10); });`,
        ],
        { encoding: 'utf8' },
      ).stdout;
    t.equal(run(true), 'true', 'control: a timeout something holds fires');
    t.equal(
      run(false),
      'false',
      `Node ${process.versions.node} still loses it: when this fails, retire src/util/timeout-signal.ts`,
    );
  },
);

/** The table's rows: fast path, setting, module, condition, re-check date. */
function retirementTable(): string[][] {
  const doc = readFileSync(path.join(PROJECT_ROOT, 'docs', 'hot-paths.md'), 'utf8');
  const start = doc.indexOf('| fast path |');
  const rows = doc.slice(start).split('\n');
  return rows
    .slice(
      2,
      rows.findIndex((l) => !l.startsWith('|')),
    )
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

t.test('retirement: one row per switch in docs/hot-paths.md, its date in its module, not yet passed', async (t) => {
  const rows = retirementTable();
  const defaults = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'config', 'default.json'), 'utf8')) as {
    fastPaths: Record<string, boolean>;
  };
  t.same(
    rows.map((r) => r[1]).sort(),
    Object.keys(defaults.fastPaths)
      .map((k) => `\`fastPaths.${k}\``)
      .sort(),
  );
  for (const [name, , , module, , date] of rows) {
    const file = /`([^`]+)`/.exec(module!)?.[1];
    const text =
      file && existsSync(path.join(PROJECT_ROOT, file)) ? readFileSync(path.join(PROJECT_ROOT, file), 'utf8') : '';
    t.match(text, /Retire when:/, `${name}: ${file} states its retirement condition`);
    t.ok(date && text.includes(date), `${name}: ${file} names the table's re-check date ${date}`);
    t.ok(Date.now() < Date.parse(`${date}T00:00:00Z`), `${name}: re-check by ${date}, then retire or give a new date`);
  }
});
