/** `npm start`'s path: prestart builds dist/main.js (one bundled module) and it serves like src/main.ts. */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';
import { startDaemonProcess } from '../helpers/daemon-process.ts';

t.test('the built daemon starts, answers and drains', async (t) => {
  const build = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build-if-stale.mjs')], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  t.equal(build.status, 0, `prestart build succeeds ${build.stderr}`);
  t.ok(existsSync(path.join(PROJECT_ROOT, 'dist', 'main.js')));
  const { child, port, output } = await startDaemonProcess(t, [path.join(PROJECT_ROOT, 'dist', 'main.js')]);
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
  t.match(output(), /"msg":"stopped"/, 'the asynchronous log is flushed before exit');
});
