/**
 * Proof search tests: a daemon whose environment runs the transcript REPL (answers only from
 * the real REPL's recorded transcripts, ../shared/recorded/repl/<tag>/), and a minimal
 * /v1/stream client for raw messages.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { buildLaunch, NO_LIMITS, type LaunchSpec } from '../../src/backend/process/launch.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { makeApp, testConfig } from '../helpers.ts';
import type { ConfigInput } from '../../src/config.ts';

export const TRANSCRIPT_REPL = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/transcript-repl.mjs',
);

export const REPL_RECORDINGS = 'recorded/repl';
export const recordingsSkip = (): string | false => sharedSkip(REPL_RECORDINGS);

/** `<in>|<out>` pairs of the named tests at `tag`. */
export function transcripts(tag: string, names: readonly string[]): string {
  const dir = path.join(sharedPath(REPL_RECORDINGS)!, tag);
  return names.map((n) => `${path.join(dir, `${n}.in`)}|${path.join(dir, `${n}.expected.out`)}`).join(';');
}

/** The recorded answers of a transcript, in order (JSON blocks separated by blank lines). */
export function recordedAnswers(tag: string, name: string): Record<string, unknown>[] {
  const file = path.join(sharedPath(REPL_RECORDINGS)!, tag, `${name}.expected.out`);
  return readFileSync(file, 'utf8')
    .split(/\n\s*\n/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => JSON.parse(s) as Record<string, unknown>);
}

export function transcriptLaunch(env: Record<string, string>, script = TRANSCRIPT_REPL): LaunchSpec {
  const spec = buildLaunch(
    { project_dir: path.dirname(script), repl_command: [process.execPath, script] },
    { limits: NO_LIMITS, sandbox: 'none' },
    process.env,
  );
  return { ...spec, env: { ...spec.env, ...env } };
}

/** A listening daemon whose REPL answers from `env.TRANSCRIPTS`; its ws:// base URL. */
export function searchDaemon(
  env: Record<string, string>,
  over: Partial<ConfigInput> = {},
): Promise<{ app: FastifyInstance; url: string }> {
  return searchDaemonWith('transcript-repl.mjs', env, over);
}

/** The same with another REPL double of test/fixtures/ (the stand-in, for growth). */
export async function searchDaemonWith(
  fixture: string,
  env: Record<string, string>,
  over: Partial<ConfigInput> = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const script = path.join(path.dirname(TRANSCRIPT_REPL), fixture);
  const app = await makeApp({ launch: () => transcriptLaunch(env, script), config: testConfig(over) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, url: `ws://127.0.0.1:${port}` };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a stream event's JSON, read field by field in the tests
type Json = any;

/** A raw stream client: `call` sends one message and resolves with its result or error event. */
export async function rawStream(url: string): Promise<{
  call: (tool: string, request: Record<string, unknown>) => Promise<Json>;
  close: () => Promise<void>;
}> {
  const ws = new WebSocket(`${url}/v1/stream`);
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
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
