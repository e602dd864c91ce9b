/**
 * `node --import tsx bench/metrics-labels.ts [n]`: n (default 60,000) POSTs to distinct unknown
 * tool paths over loopback HTTP (404s, no key), then one `GET /metrics`: its wall time and size.
 * Labels come from a closed set (src/metrics/request-series.ts), so the exposition must not
 * grow with the names sent. Prints one JSON line with the machine's load.
 */
import os from 'node:os';
import http from 'node:http';
import { buildApp } from '../src/app.ts';
import { configSchema } from '../src/config.ts';
import { drive, round } from './lib.ts';

const n = Number(process.argv[2] ?? 60_000);
const app = await buildApp({ config: configSchema.parse({}), logger: false, startupChecks: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as { port: number }).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

function request(method: string, path: string, body?: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json' };
    const req = http.request({ host: '127.0.0.1', port, path, method, agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const t0 = performance.now();
const sent = await drive(
  Array.from({ length: n }, (_, i) => i),
  32,
  async (i) => (await request('POST', `/api/v1/no-such-tool-${i}`, '{}')).status,
);
const sendS = (performance.now() - t0) / 1000;
const m0 = performance.now();
const metrics = await request('GET', '/metrics');
const metricsMs = performance.now() - m0;
agent.destroy();
await app.close();
console.log(
  JSON.stringify({
    paths: n,
    statuses: Object.fromEntries(sent.statuses),
    sendSeconds: round(sendS, 1),
    metricsMs: round(metricsMs, 1),
    metricsBytes: metrics.bytes,
    load: os.loadavg().map((x) => round(x, 2)),
    cpus: os.cpus().length,
  }),
);
