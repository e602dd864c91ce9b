// One request at a time over a keep-alive connection; prints latency stats (ms) as JSON.
// argv: url key body n warmup. `[<id>]` in the body is replaced by a fresh id per request;
// a body `@<file>` is read from that file (large bodies do not fit in one argument).
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [url, key, bodyArg, n, warmup] = process.argv.slice(2);
const template = bodyArg.startsWith('@') ? readFileSync(bodyArg.slice(1), 'utf8') : bodyArg;
const u = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let id = 0;
const once = () =>
  new Promise((resolve, reject) => {
    const body = template.replaceAll('[<id>]', `${process.pid}-${id++}`);
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve([res.statusCode, Number(process.hrtime.bigint() - t0) / 1e6]));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
for (let i = 0; i < Number(warmup); i++) await once();
const lat = [];
const statuses = {};
for (let i = 0; i < Number(n); i++) {
  const [s, ms] = await once();
  lat.push(ms);
  statuses[s] = (statuses[s] ?? 0) + 1;
}
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.max(0, Math.ceil(p * lat.length) - 1))];
agent.destroy();
process.stdout.write(
  JSON.stringify({ n: lat.length, min: lat[0], p50: q(0.5), p90: q(0.9), p99: q(0.99), statuses }) + '\n',
);
