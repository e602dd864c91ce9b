/** `npm start`'s path: prestart builds dist/main.js (one bundled module) and it serves like src/main.ts. */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';

t.test('the built daemon starts, answers and drains', async (t) => {
  const build = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build-if-stale.mjs')], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  t.equal(build.status, 0, `prestart build succeeds ${build.stderr}`);
  t.ok(existsSync(path.join(PROJECT_ROOT, 'dist', 'main.js')));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'main.js')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const deadline = Date.now() + 20_000;
  while (!out.includes('lean tool service listening') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const envs = (await (await fetch(`http://127.0.0.1:${port}/v1/environments`)).json()) as {
    name: string;
    available: boolean;
  }[];
  t.ok(
    envs.length >= 1 && envs.every((e) => typeof e.available === 'boolean'),
    'environments listed with availability',
  );
  const bad = await fetch(`http://127.0.0.1:${port}/api/v1/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"content": 1}',
  });
  t.equal(bad.status, 400, 'validation works in the bundle');
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0);
  t.match(out, /"msg":"stopped"/, 'the asynchronous log is flushed before exit');
});
