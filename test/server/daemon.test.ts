/** The newcomer's command: `npm start` serves the listing and status, and drains on SIGTERM. */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';
import { startDaemonProcess } from '../helpers/daemon-process.ts';
import { TS_LOADER } from '../ts-loader.ts';

t.test('npm start listens on PORT, answers, and exits 0 on SIGTERM', async (t) => {
  const { child, port, output } = await startDaemonProcess(t, [
    ...TS_LOADER,
    path.join(PROJECT_ROOT, 'src', 'main.ts'),
  ]);
  t.match(output(), 'lean tool service listening');
  const envs = (await (await fetch(`http://127.0.0.1:${port}/v1/environments`)).json()) as {
    name: string;
    available: boolean;
  }[];
  t.ok(envs.length >= 1 && envs.every((e) => typeof e.available === 'boolean'));
  const status = (await (await fetch(`http://127.0.0.1:${port}/v1/status`)).json()) as { status: string };
  t.equal(status.status, 'healthy');
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0);
  const lines = output()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const reqLine = lines.find((l) => l.url === '/v1/status');
  t.match(reqLine, { msg: 'request', status: 200, keyClass: 'anonymous' }, 'one log line per request');
  t.ok(lines.some((l) => l.msg === 'stopped'));
});

t.test(
  'SIGTERM with a shutdown delay: readiness 503 first, new connections still served; a second signal drains',
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lean-tool-delay-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const overlay = path.join(dir, 'config.json');
    // Long enough for a loaded machine's slow answers; a second signal cuts it short. One worker thread, not one
    // per core: the daemon starts them once it listens, each loading the sources (~0.5 s of CPU), and none is used here.
    writeFileSync(overlay, JSON.stringify({ server: { shutdownDelayMs: 60_000 }, workers: { threads: 1 } }));
    const { child, port, output } = await startDaemonProcess(
      t,
      [...TS_LOADER, path.join(PROJECT_ROOT, 'src', 'main.ts')],
      {
        LEAN_TOOL_CONFIG: overlay,
      },
    );
    const base = `http://127.0.0.1:${port}`;
    // A fresh connection per request: what a load balancer opens for new clients.
    const get = (p: string) =>
      fetch(`${base}${p}`, { headers: { connection: 'close' } }).catch((e: Error) => {
        throw new Error(`${e.message}: ${String(e.cause)}`);
      });
    const reasons = async () => ((await (await get('/health/ready')).json()) as { reasons: string[] }).reasons;
    t.notOk((await reasons()).includes('shutting down'), 'before: not shutting down');

    child.kill('SIGTERM');
    const { until } = await import('./../cluster/fixtures.ts');
    await until(async () => (await reasons()).includes('shutting down'), 20_000, 'readiness: shutting down');
    t.equal((await get('/health/ready')).status, 503);
    t.equal(child.exitCode, null, 'still running during the delay');
    t.equal((await get('/v1/environments')).status, 200, 'a new connection is still served');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    t.equal(code, 0);
    t.match(output(), /readiness 503, still serving[\s\S]*draining: no new requests/, 'unready first, then the drain');
  },
);

t.test('draining: queued requests finish, new ones get 503 overloaded', async (t) => {
  const { checkResult, makeApp, sleep } = await import('../helpers.ts');
  const app = await makeApp({
    tools: {
      check: {
        needsLean: () => false,
        run: async (req) => {
          await sleep(300);
          return checkResult(req.content);
        },
      },
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const post = (content: string) =>
    fetch(`${base}/api/v1/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content, environment: 'lean-test' }),
    });
  const running = post('first');
  const queued = post('second'); // anonymous: waits for the single slot
  // Close only once one request runs and the other waits (not before they arrive).
  for (let i = 0; i < 400; i++) {
    const a = (await app.inject({ method: 'GET', url: '/v1/status' })).json().admission;
    if (a.active === 1 && a.queued === 1) break;
    await sleep(10);
  }
  const closing = app.close();
  const [r1, r2] = await Promise.all([running, queued]);
  t.equal(r1.status, 200);
  t.equal(r2.status, 200, 'the queued request was not lost');
  await closing;
});
