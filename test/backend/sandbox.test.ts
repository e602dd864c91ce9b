/**
 * The jail, against a hostile test double started through the same launch path as a REPL:
 * it tries to write outside its tmp, read the daemon's config, reach a port the test opened,
 * fork many processes, allocate past the memory cap and run past its CPU limit. Every
 * attempt fails or the process is killed; nothing survives; a session's tmp is its own.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { buildLaunch, NO_LIMITS, type ProcessLimits } from '../../src/backend/process/launch.ts';
import { liveProcessGroups, ReplError, ReplProcess } from '../../src/backend/process/repl-process.ts';
import { bwrapStatus } from '../../src/backend/process/sandbox.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { FAKE_REPL, groupMembers, silent, waitFor } from './fake.ts';
import { makeApp, testConfig } from '../helpers.ts';

const status = bwrapStatus(process.env);
const skip = status.usable ? false : `bubblewrap is not usable here: ${status.reason}`;
if (skip) t.comment(`SKIP sandbox tests: ${skip}`);

const limits: ProcessLimits = {
  ...NO_LIMITS,
  addressSpaceMb: 2048,
  // Each BURN below runs until this limit: 1 s of CPU is far above the fake REPL's start-up (a Node start).
  cpuSeconds: 1,
  maxProcesses: 64,
  maxOpenFiles: 256,
  maxFileSizeMb: 8,
  tmpMb: 16,
};
const jailed = (opts: Partial<ConstructorParameters<typeof ReplProcess>[0]> = {}) =>
  new ReplProcess({
    launch: buildLaunch(
      { project_dir: path.dirname(FAKE_REPL), repl_command: [process.execPath, FAKE_REPL] },
      { limits, sandbox: 'bwrap' },
      process.env,
    ),
    log: silent,
    maxProcesses: 32,
    rssPollMs: 50,
    ...opts,
  });

async function probe(p: ReplProcess, cmd: string): Promise<string> {
  const r = await p.send({ cmd });
  if (r.type !== 'command') throw new Error(`unexpected ${r.type}`);
  return r.value.messages[0]?.data ?? '';
}

t.test('the file system: no writes outside tmp, no daemon config, private /tmp', { skip }, async (t) => {
  const p = jailed();
  t.teardown(() => p.kill());
  t.match(
    await probe(p, `WRITE ${path.join(path.dirname(FAKE_REPL), 'pwned')}`),
    /^error (EROFS|EACCES)/,
    'the project is read-only',
  );
  t.match(await probe(p, 'WRITE /etc/pwned'), /^error (EROFS|ENOENT|EACCES)/, '/etc is not writable');
  const pwned = path.join(PROJECT_ROOT, 'pwned');
  const wrote = await probe(p, `WRITE ${pwned}`);
  // A checkout under /tmp (a fresh clone in mktemp -d) lies inside the jail's own private /tmp, where writes are allowed.
  if (PROJECT_ROOT.startsWith('/tmp/'))
    t.match(
      wrote,
      /^(ok|error (ENOENT|EROFS|EACCES))/,
      "the daemon's tree is not there (its path is in the jail's private /tmp)",
    );
  else t.match(wrote, /^error (ENOENT|EROFS|EACCES)/, "the daemon's tree is not there");
  t.notOk(existsSync(pwned), 'nothing reached the host');
  t.match(
    await probe(p, `READ ${path.join(PROJECT_ROOT, 'config', 'default.json')}`),
    /^error ENOENT/,
    "the daemon's config is invisible",
  );
  t.match(await probe(p, 'READ /root/.bash_history'), /^error (ENOENT|EACCES)/, 'no home directory');
  t.match(await probe(p, 'WRITE /tmp/mine'), /^ok/, '/tmp is writable');
  t.match(await probe(p, 'WRITE /scratch/notes'), /^ok/, 'so is the working directory');
});

t.test('the jail’s tmp is not shared between two sessions', { skip }, async (t) => {
  const a = jailed();
  const b = jailed();
  t.teardown(() => {
    a.kill();
    b.kill();
  });
  t.match(await probe(a, 'WRITE /tmp/secret'), /^ok/);
  t.match(await probe(a, 'READ /tmp/secret'), /^ok/);
  t.match(await probe(b, 'READ /tmp/secret'), /^error ENOENT/);
});

t.test('no network: a port the test opened on loopback is unreachable', { skip }, async (t) => {
  const server = net.createServer((s) => s.end('hello')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.teardown(() => server.close());
  const port = (server.address() as net.AddressInfo).port;
  const p = jailed();
  t.teardown(() => p.kill());
  t.match(await probe(p, `CONNECT ${port}`), /^error (ECONNREFUSED|ENETUNREACH|EACCES)/);
});

t.test('a fork bomb is stopped, and nothing of it survives', { skip }, async (t) => {
  const p = jailed();
  const res: unknown = await p.send({ cmd: 'FORKBOMB 200' }).catch((e: unknown) => e);
  // Either the spawns fail (RLIMIT_NPROC) or the watchdog kills the tree.
  if (res instanceof ReplError) t.equal(res.fault, 'processes');
  else t.match(JSON.stringify(res), /error|started/);
  p.kill();
  await p.exited;
  t.ok(
    await waitFor(() => groupMembers(p.pid).length === 0),
    'the whole group is gone (detached children die with the PID namespace)',
  );
});

t.test('allocation past the address-space cap fails', { skip }, async (t) => {
  const p = jailed();
  t.teardown(() => p.kill());
  const r = await p.send({ cmd: 'TRYGROW 3000' }).then(
    (x) => (x.type === 'command' ? (x.value.messages[0]?.data ?? '') : ''),
    (e: unknown) => (e as ReplError).fault,
  );
  t.match(r, /^error|crashed/, `3000 MiB under a 2048 MiB cap: ${r}`);
});

t.test('running past the CPU limit kills the process', { skip }, async (t) => {
  const p = jailed();
  const err = await p.send({ cmd: 'BURN 10000' }).catch((e: unknown) => e);
  t.ok(err instanceof ReplError && err.fault === 'crashed', 'killed by RLIMIT_CPU (1 s)');
  const exit = await p.exited;
  t.ok(
    exit.signal === 'SIGXCPU' || exit.signal === 'SIGKILL' || exit.code !== 0,
    `exit ${String(exit.code)} / ${String(exit.signal)}`,
  );
});

t.test('the daemon keeps serving while a jailed session is killed', { skip }, async (t) => {
  const app = await makeApp({
    config: testConfig({ lean: { minWarm: 0, maxSessions: 2, limits } }),
    launch: (e) =>
      buildLaunch(
        { ...e, project_dir: path.dirname(FAKE_REPL), repl_command: [process.execPath, FAKE_REPL] },
        { limits, sandbox: 'bwrap' },
        process.env,
      ),
  });
  t.teardown(() => app.close());
  const post = (content: string) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/check',
      payload: { content, environment: 'lean-test', timeout_seconds: 10 },
    });
  const [bomb, fine] = await Promise.all([post('BURN 10000\n'), post('def ok := 1\n')]);
  t.equal(fine.statusCode, 200);
  t.equal(fine.json().okay, true);
  t.equal(bomb.statusCode, 200);
  t.match(bomb.json().tool_messages.errors[0], /Lean failed while elaborating/);
  t.equal((await post('def again := 2\n')).statusCode, 200, 'a replacement session serves the next request');
});

t.test('no process group survives', async (t) => {
  t.ok(await waitFor(() => liveProcessGroups().length === 0), `live: ${liveProcessGroups().join(',')}`);
});
