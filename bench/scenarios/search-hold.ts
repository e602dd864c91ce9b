/**
 * The "search hold" family of the adversarial scenario: proof search states held by anonymous
 * callers must not keep another key's ordinary requests waiting (docs/hostile-input.md). One
 * Lean process for the environment (`lean.maxSessions: 1`, the strictest), two anonymous
 * sockets each holding a proof state, then key B's checks (one after another, timed end to
 * end) and key B's own `goal.start`. PASS when B's slowest check is within HOLD_WAIT_MS and
 * its start is served. The REPL is the stand-in (test/fixtures/standin-repl.mjs: states per
 * `sorry`, tactics answer a new state; ordinary commands an env), no Lean here.
 */
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { buildApp } from '../../src/app.ts';
import { buildLaunch, NO_LIMITS } from '../../src/backend/process/launch.ts';
import { configSchema } from '../../src/config.ts';
import { round } from '../lib.ts';

const ENV = 'bench';
const STANDIN = fileURLToPath(new URL('../../test/fixtures/standin-repl.mjs', import.meta.url));
/** The guarantee: B's check waits at most for a running message, never for the held states. */
const HOLD_WAIT_MS = 1_000;
const CHECKS = 5;

async function daemon() {
  const config = configSchema.parse({
    environments: [
      { name: ENV, lean_toolchain: 'leanprover/lean4:v4.28.0', imports: '', project_dir: path.dirname(STANDIN) },
    ],
    lean: { minWarm: 0, maxSessions: 1 },
  });
  const launch = () =>
    buildLaunch(
      { project_dir: path.dirname(STANDIN), repl_command: [process.execPath, STANDIN] },
      { limits: NO_LIMITS, sandbox: 'none' },
      process.env,
    );
  const app = await buildApp({
    config,
    logger: false,
    probe: () => ({ available: true }),
    startupChecks: false,
    launch,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.server.address() as { port: number }).port };
}

/** A socket and one `goal.start` on it: its answer event. */
async function start(port: number, key?: string): Promise<{ socket: WebSocket; event: string }> {
  const headers = key ? { authorization: `Bearer ${key}` } : undefined;
  const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`, headers ? { headers } : {});
  await new Promise((r) => socket.once('open', r));
  const answer = new Promise<string>((r) =>
    socket.on('message', (d) => {
      const e = JSON.parse(String(d)) as { event: string };
      if (e.event === 'result' || e.event === 'error') r(e.event);
    }),
  );
  const request = { environment: ENV, content: 'theorem t : P := by sorry' };
  socket.send(JSON.stringify({ id: 's', tool: 'goal.start', request }));
  return { socket, event: await answer };
}

/** One check of key B, end to end (ms) and its status. */
function check(port: number, i: number): Promise<{ ms: number; status: number }> {
  const body = JSON.stringify({ environment: ENV, content: `theorem c${i} : True := trivial`, timeout_seconds: 60 });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/api/v1/check',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench-b' },
    });
    req.on('response', (res) =>
      res
        .resume()
        .on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0 }))
        .on('error', reject),
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function searchHold(): Promise<{ row: [string, string, string]; figures: object }> {
  const { app, port } = await daemon();
  const sockets: WebSocket[] = [];
  try {
    const held = [await start(port), await start(port)];
    sockets.push(...held.map((h) => h.socket));
    await check(port, -1); // warm
    const checks: { ms: number; status: number }[] = [];
    for (let i = 0; i < CHECKS; i++) checks.push(await check(port, i));
    const b = await start(port, 'bench-b');
    sockets.push(b.socket);
    const worst = Math.max(...checks.map((c) => c.ms));
    const allOk = checks.every((c) => c.status === 200) && held.every((h) => h.event === 'result');
    const verdict = allOk && worst <= HOLD_WAIT_MS && b.event === 'result' ? 'PASS' : 'FAIL';
    return {
      row: [
        "search hold: key B's check while two anonymous sockets hold states (one process)",
        `${round(worst, 1)} ms worst of ${checks.length}; B's goal.start: ${b.event}`,
        `${verdict} (≤ ${HOLD_WAIT_MS} ms, statuses ${checks.map((c) => c.status).join('/')})`,
      ],
      figures: { checkMs: checks.map((c) => round(c.ms, 1)), worstMs: round(worst, 1), start: b.event, verdict },
    };
  } finally {
    for (const s of sockets) s.close();
    await app.close();
  }
}
