/** bwrap's self-test run without blocking (daemon start) answers as the blocking one does. */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { bwrapStatus, bwrapStatusAsync } from '../../src/host/discovery.ts';

/** A directory holding a `bwrap` double with this shell body. */
function fakeBwrap(body: string): NodeJS.ProcessEnv {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bwrap-'));
  writeFileSync(path.join(dir, 'bwrap'), `#!/bin/sh\n${body}\n`);
  chmodSync(path.join(dir, 'bwrap'), 0o755);
  return { PATH: dir, HOME: dir };
}

t.test('a failing self-test: the same reason both ways, stderr quoted', async (t) => {
  const a = await bwrapStatusAsync(fakeBwrap('echo "setting up uid map: Permission denied" >&2; exit 1'));
  t.same(a.usable, false);
  t.match(
    (a as { reason: string }).reason,
    /cannot create its namespaces here \(setting up uid map: Permission denied\)/,
  );
  t.same(bwrapStatus(fakeBwrap('echo "setting up uid map: Permission denied" >&2; exit 1')), a);
});

t.test('a passing self-test is usable both ways; the result is kept per binary', async (t) => {
  const env = fakeBwrap('exit 0');
  t.same(await bwrapStatusAsync(env), { usable: true });
  t.same(bwrapStatus(env), { usable: true });
});

t.test('a failing exit without stderr names the exit code', async (t) => {
  const a = await bwrapStatusAsync(fakeBwrap('exit 3'));
  t.match((a as { reason: string }).reason, /\(exit 3\)/);
  t.same(bwrapStatus(fakeBwrap('exit 3')), a);
});

t.test('no bwrap on PATH: not installed, both ways', async (t) => {
  const env = { PATH: mkdtempSync(path.join(os.tmpdir(), 'nobwrap-')), HOME: '/nonexistent' };
  const a = await bwrapStatusAsync(env);
  t.match((a as { reason: string }).reason, /bwrap is not installed/);
  t.same(bwrapStatus(env), a);
});
