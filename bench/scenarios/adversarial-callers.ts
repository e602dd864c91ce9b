/**
 * The `adversarial` rows about callers harming each other through shared tables (a daemon of its
 * own, no Lean needed): the metrics exposition under distinct unknown tool paths, and the MCP
 * session table under one anonymous caller's flood of `initialize` calls. Each row says PASS or
 * FAIL against the bound the hostile-input guarantees state (docs/hostile-input.md).
 */
import http from 'node:http';
import { buildApp } from '../../src/app.ts';
import { configSchema } from '../../src/config.ts';
import { drive, round } from '../lib.ts';

type Row = { row: [string, string, string]; figures: object };

/** Distinct unknown tool paths sent before the scrape (the figure: 60,000 made a 233 MB page). */
const BAD_PATHS = 60_000;
/** The exposition's bounds whatever callers send. */
const METRICS_MS = 1000;
const METRICS_BYTES = 1024 * 1024;
/** Anonymous `initialize` calls (more than the daemon's 64 sessions). */
const MCP_FLOOD = 70;
const KEY = 'bench-key-alice';

function request(port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; bytes: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const all = body === undefined ? headers : { 'content-type': 'application/json', ...headers };
    const req = http.request({ host: '127.0.0.1', port, path, method, headers: all }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function metricsRow(port: number): Promise<Row> {
  await drive(
    Array.from({ length: BAD_PATHS }, (_, i) => i),
    32,
    async (i) => (await request(port, 'POST', `/api/v1/no-such-tool-${i}`, '{}')).status,
  );
  const t0 = performance.now();
  const page = await request(port, 'GET', '/metrics');
  const ms = performance.now() - t0;
  const verdict = page.status === 200 && ms <= METRICS_MS && page.bytes <= METRICS_BYTES ? 'PASS' : 'FAIL';
  return {
    row: [
      `metrics cardinality: GET /metrics after ${BAD_PATHS / 1000}k distinct unknown tool paths`,
      `${round(ms, 1)} ms, ${round(page.bytes / 1024, 1)} KiB`,
      `${verdict} (≤ ${METRICS_MS} ms and ≤ ${METRICS_BYTES / 1024} KiB)`,
    ],
    figures: { ms: round(ms, 1), bytes: page.bytes, verdict },
  };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
});
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

async function mcpRow(port: number): Promise<Row> {
  const auth = { ...MCP_HEADERS, authorization: `Bearer ${KEY}` };
  const a = await request(port, 'POST', '/mcp', INITIALIZE, auth);
  const sid = String(a.headers['mcp-session-id'] ?? '');
  const flood = await drive(
    Array.from({ length: MCP_FLOOD }, (_, i) => i),
    8,
    async () => (await request(port, 'POST', '/mcp', INITIALIZE, MCP_HEADERS)).status,
  );
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const after = await request(port, 'POST', '/mcp', list, { ...auth, 'mcp-session-id': sid });
  const verdict = sid !== '' && after.status === 200 ? 'PASS' : 'FAIL';
  const statuses = [...flood.statuses].map(([s, n]) => `${n}× ${s}`).join(', ');
  return {
    row: [
      `MCP flood: ${MCP_FLOOD} anonymous initialize calls, then the key's idle session`,
      `key's session ${after.status}; flood answered ${statuses}`,
      `${verdict} (the key's session still answers)`,
    ],
    figures: { keySession: after.status, floodStatuses: Object.fromEntries(flood.statuses), verdict },
  };
}

export async function callerTableRows(): Promise<Row[]> {
  const config = configSchema.parse({ keys: [{ key: KEY, name: 'alice' }] });
  const app = await buildApp({ config, logger: false, startupChecks: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  try {
    return [await metricsRow(port), await mcpRow(port)];
  } finally {
    await app.close();
  }
}
