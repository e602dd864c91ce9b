/**
 * Issue 23's findings through the daemon (HTTP and WebSocket), each at 1× and 64× of a base
 * size: the request's wall time (warm: one run first), the 64×/1× ratio, and the p99 of
 * `GET /v1/status` polled every 20 ms from another process meanwhile (what every other
 * caller sees while the request runs; a blocked event loop shows here).
 */
import { spawn } from 'node:child_process';
import WebSocket from 'ws';
import { buildApp } from '../../src/app.ts';
import { configSchema } from '../../src/config.ts';
import { round, stats } from '../lib.ts';

const ENV = 'bench';
const POLLER = `
const http = require('node:http');
const url = process.argv[1];
const out = [];
let stop = false;
process.stdin.on('data', () => { stop = true; });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const once = () => new Promise((r) => {
  const t0 = process.hrtime.bigint();
  http.get(url, { agent }, (res) => { res.resume(); res.on('end', () => { out.push(Number(process.hrtime.bigint() - t0) / 1e6); r(); }); }).on('error', () => r());
});
(async () => { while (!stop) { await once(); await new Promise((r) => setTimeout(r, 20)); } process.stdout.write(JSON.stringify(out), () => process.exit(0)); })();
`;

/** Polls /v1/status from a child process while `work` runs; returns its latencies (ms). */
async function polled(port: number, work: () => Promise<unknown>): Promise<number[]> {
  const child = spawn(process.execPath, ['-e', POLLER, `http://127.0.0.1:${port}/v1/status`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let text = '';
  child.stdout.on('data', (d) => (text += String(d)));
  await new Promise((r) => setTimeout(r, 300));
  await work();
  child.stdin.end('x');
  await new Promise((r) => child.once('close', r));
  return JSON.parse(text || '[]') as number[];
}

const numbers = (n: number) =>
  `{"content":"theorem a : True := trivial","environment":"${ENV}","reparse":false,"names":[${'1,'.repeat(n - 1)}1]}`;
const renameMap = (n: number) =>
  JSON.stringify({
    content: 'def a : Nat := 1\n',
    environment: ENV,
    reparse: false,
    declarations: Object.fromEntries(Array.from({ length: n }, (_, i) => [`x${i}`, `y${i}`])),
  });
const blowUp = (n: number) =>
  JSON.stringify({
    content: `def a : Nat := 1\n${'example : a = a := rfl\n'.repeat(n)}`,
    environment: ENV,
    reparse: false,
    declarations: { a: 'b'.repeat(4 * n) },
  });

/** Each finding: its base n, the body for n, and the transport. */
const HTTP_FAMILIES: Record<string, { base: number; body: (n: number) => string; ws?: boolean; tool: string }> = {
  'item 2: wrong-typed names (HTTP)': { base: 1_500, body: numbers, tool: 'theorem2sorry' },
  'item 1: wrong-typed names (WS message)': { base: 1_500, body: numbers, ws: true, tool: 'theorem2sorry' },
  'item 7: rename map entries': { base: 1_500, body: renameMap, tool: 'rename' },
  'item 6: rename blow-up': { base: 200, body: blowUp, tool: 'rename' },
};

async function send(port: number, tool: string, body: string, ws: boolean): Promise<number> {
  const t0 = performance.now();
  if (!ws) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/${tool}`, { method: 'POST', body });
    await res.arrayBuffer();
    return performance.now() - t0;
  }
  const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`);
  await new Promise((r) => socket.once('open', r));
  const done = new Promise((r) => socket.on('message', (d) => /"event":"(result|error)"/.test(String(d)) && r(null)));
  socket.send(`{"id":"x","tool":"${tool}","request":${body}}`);
  await done;
  socket.close();
  return performance.now() - t0;
}

export async function adversarialHttpRows(): Promise<{ rows: [string, string, string][]; figures: object }> {
  const config = configSchema.parse({
    environments: [{ name: ENV, lean_toolchain: 'leanprover/lean4:v4.28.0', imports: '', project_dir: '/none' }],
    lean: { minWarm: 0 },
  });
  const app = await buildApp({ config, logger: false, probe: () => ({ available: true }), startupChecks: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  await app.warmWorkers();
  const port = (app.server.address() as { port: number }).port;
  const rows: [string, string, string][] = [];
  const figures: Record<string, unknown> = {};
  try {
    for (const [name, f] of Object.entries(HTTP_FAMILIES)) {
      const ms: number[] = [];
      const lat = await polled(port, async () => {
        for (const k of [1, 64]) {
          const body = f.body(f.base * k);
          await send(port, f.tool, body, f.ws === true); // warm
          ms.push(await send(port, f.tool, body, f.ws === true));
        }
      });
      const s = stats(lat);
      const ratio = ms[1]! / ms[0]!;
      figures[name] = { ms: ms.map((x) => round(x, 1)), ratio: round(ratio, 1), statusP99: round(s.p99, 1) };
      rows.push([
        name,
        `${round(ms[0]!, 1)} / ${round(ms[1]!, 1)} ms`,
        `64×/1× ${round(ratio, 1)}; status p99 ${round(s.p99, 1)} ms (n=${lat.length})`,
      ]);
    }
  } finally {
    await app.close();
  }
  return { rows, figures };
}
