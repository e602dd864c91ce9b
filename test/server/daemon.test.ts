/** The newcomer's command: `npm start` serves the listing and status, and drains on SIGTERM. */
import { once } from 'node:events';
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
