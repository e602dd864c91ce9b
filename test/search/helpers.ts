/**
 * Proof search tests: a daemon whose environment runs the project's recorded REPL
 * (test/recorded/recorded-repl.ts: answers only what the real REPL's transcripts of one tag,
 * ../shared/recorded/repl/<tag>/, recorded, and refuses anything else by exiting), and a minimal
 * /v1/stream client for raw messages.
 */
import path from 'node:path';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import WebSocket from 'ws';
import { buildLaunch, NO_LIMITS, type LaunchSpec } from '../../src/backend/process/launch.ts';
import { makeApp, testConfig, testEnvironments, testProbe } from '../helpers.ts';
import type { ConfigInput } from '../../src/config.ts';
import { recordedLaunch, recordedSkip, recordedTagDir } from '../recorded/recorded-launch.ts';
import { readExchanges, type Exchange } from '../recorded/repl-source.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** Why the recordings of `tags` cannot drive a test here, or false. */
export const recordingsSkip = (...tags: string[]): string | false =>
  tags.map((tag) => recordedSkip(tag)).find(Boolean) ?? false;

/** The recorded exchanges of one transcript (request and answer, in order). */
export function recorded(tag: string, name: string): Exchange[] {
  return readExchanges(path.join(recordedTagDir(tag)!, `${name}.in`));
}

/** The recorded answers of a transcript, in order. */
export function recordedAnswers(tag: string, name: string): Record<string, unknown>[] {
  return recorded(tag, name).map((x) => x.response);
}

/**
 * The environment searches of these tests run in: no imports, so the header the service sends is
 * the empty one, Init, as every recorded command without `env` ran (repl-answers.ts).
 */
export const SEARCH_ENV = 'recorded';

function recordedConfig(tag: string, over: Partial<ConfigInput>) {
  const env = { name: SEARCH_ENV, lean_toolchain: `leanprover/lean4:${tag}`, imports: '', project_dir: FIXTURES };
  return testConfig({ environments: [...testEnvironments, env], ...over });
}

export interface RecordedDaemon {
  app: FastifyInstance;
  /** ws:// base URL. */
  url: string;
  /** What the recorded REPL refused so far (each refusal ended its process). */
  refusals: () => string[];
  /** Close the daemon now (idempotent; done at the end of the test anyway). */
  close: () => Promise<void>;
}

/**
 * A listening daemon whose REPL is the recorded REPL of `tag` (closed at the end of `t`).
 * `faults`: the recorded REPL's typed process faults (RECORDED_REPL_HANG, _CRASH, _ONCE_FILE).
 */
export async function searchDaemon(
  t: Test,
  tag: string,
  over: Partial<ConfigInput> = {},
  faults: Record<string, string> = {},
): Promise<RecordedDaemon> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'search-recorded-'));
  const file = path.join(tmp, 'refusals.jsonl');
  const d = await listening(await recordedSearchApp(tag, file, over, faults));
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= d.app.close().then(() => rmSync(tmp, { recursive: true, force: true })));
  t.teardown(close);
  return { ...d, refusals: () => refusalsIn(file), close };
}

/** A daemon (not listening) whose REPL is the recorded REPL of `tag`, its refusals appended to `file`. */
export function recordedSearchApp(
  tag: string,
  file: string,
  over: Partial<ConfigInput> = {},
  faults: Record<string, string> = {},
): Promise<FastifyInstance> {
  const launch = (): LaunchSpec => {
    const spec = recordedLaunch(tag, file);
    return { ...spec, env: { ...spec.env, ...faults } };
  };
  const probe: typeof testProbe = (cfg) => (cfg.name === SEARCH_ENV ? { available: true } : testProbe(cfg));
  return makeApp({ launch, probe, config: recordedConfig(tag, over) });
}

/** What the recorded REPL refused (one JSON line each in `file`). */
export function refusalsIn(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { reason: string }).reason)
    : [];
}

/** A daemon on a REPL double of test/fixtures/ (the stand-in, for growth: what no recording shows). */
export async function searchDaemonWith(
  fixture: string,
  env: Record<string, string>,
  over: Partial<ConfigInput> = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const script = path.join(FIXTURES, fixture);
  const spec = buildLaunch(
    { project_dir: FIXTURES, repl_command: [process.execPath, script] },
    { limits: NO_LIMITS, sandbox: 'none' },
    process.env,
  );
  const launch = () => ({ ...spec, env: { ...spec.env, ...env } });
  return listening(await makeApp({ launch, config: testConfig(over) }));
}

export async function listening(app: FastifyInstance): Promise<{ app: FastifyInstance; url: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, url: `ws://127.0.0.1:${port}` };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a stream event's JSON, read field by field in the tests
type Json = any;

/** A raw stream client: `call` sends one message and resolves with its result or error event. */
export async function rawStream(
  url: string,
  headers: Record<string, string> = {},
): Promise<{
  call: (tool: string, request: Record<string, unknown>) => Promise<Json>;
  close: () => Promise<void>;
}> {
  const ws = new WebSocket(`${url}/v1/stream`, { headers });
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  const waiting = new Map<string, (e: Json) => void>();
  ws.on('message', (d) => {
    const e = JSON.parse(String(d)) as Json;
    if (e.event === 'result' || e.event === 'error') waiting.get(e.id)?.(e);
  });
  let n = 0;
  return {
    call: (tool, request) =>
      new Promise((resolve) => {
        const id = `m${n++}`;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, tool, request }));
      }),
    close: () =>
      new Promise((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
