/** Host discovery is a leaf shared by envs/ and backend/: the dependency between those two is one-way. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { searchDirs, which } from '../../src/host/discovery.ts';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const importsOf = (dir: string) =>
  readdirSync(path.join(SRC, dir))
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) =>
      [...readFileSync(path.join(SRC, dir, f), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => ({
        file: `${dir}/${f}`,
        spec: m[1]!,
      })),
    );

t.test('host/ imports nothing of the daemon; envs/ never imports backend/', async (t) => {
  const host = importsOf('host').filter((i) => i.spec.startsWith('.'));
  t.same(host, [], 'host/ is a leaf');
  const envs = importsOf('envs').filter((i) => i.spec.includes('backend/'));
  t.same(envs, [], 'envs/ does not import backend/');
  const backendProcess = importsOf('backend/process').filter(
    (i) => i.spec.includes('envs/') && !i.spec.endsWith('envs/config.ts'),
  );
  t.same(backendProcess, [], 'backend/process takes discovery from host/, only config types from envs/');
});

t.test("which: PATH, then elan's bin; absolute paths checked as given", async (t) => {
  t.ok(searchDirs({ PATH: '/a:/b', HOME: '/h' }).at(-1)!.endsWith(path.join('.elan', 'bin')));
  t.equal(which(process.execPath, []), process.execPath);
  t.equal(which('definitely-not-a-command-xyz', searchDirs(process.env)), undefined);
});
