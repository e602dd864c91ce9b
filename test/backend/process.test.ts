/** Process management against the fake REPL: deadlines, crashes, garbage, memory, group kill. */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { liveProcessGroups, ReplError, ReplProcess } from '../../src/backend/process/repl-process.ts';
import { fakeLaunch, groupMembers, silent, waitFor } from './fake.ts';

const start = (opts: Partial<ConstructorParameters<typeof ReplProcess>[0]> = {}) =>
  new ReplProcess({ launch: fakeLaunch(), log: silent, ...opts });

t.test('a request gets its response; ids come from the REPL', async (t) => {
  const p = start();
  t.teardown(() => p.kill());
  const r0 = await p.send({ cmd: 'def x := 1' });
  t.same(r0, { type: 'command', value: { env: 0, messages: [], sorries: [], tactics: [] } });
  const r1 = await p.send({ cmd: 'MSG warning careful', env: 0 });
  t.equal(r1.type === 'command' && r1.value.messages[0]?.data, 'careful');
  const bad = await p.send({ cmd: 'x', env: 42 });
  t.same(bad, { type: 'error', value: { message: 'Unknown environment.' } });
  const busy = await Promise.all([p.send({ cmd: 'SLEEP 100' }), p.send({ cmd: 'y' })]).catch((e: unknown) => e);
  t.equal((busy as ReplError).fault, 'closed', 'one request at a time');
});

t.test('abort (deadline) kills a hung REPL and its whole process group', async (t) => {
  const p = start();
  await p.send({ cmd: 'FORK' }); // leaves a `sleep` grandchild in the group
  t.ok(groupMembers(p.pid).length >= 2, 'REPL and grandchild share a group');
  const ctrl = new AbortController();
  const req = p.send({ cmd: 'HANG', env: 0 }, ctrl.signal);
  setTimeout(() => ctrl.abort(), 100);
  const err = await req.catch((e: unknown) => e);
  t.ok(err instanceof ReplError && err.fault === 'aborted');
  const exit = await p.exited;
  t.equal(exit.fault, 'aborted');
  t.ok(await waitFor(() => groupMembers(p.pid).length === 0), 'no process of the group survives');
  const dead = await p.send({ cmd: 'x' }).catch((e: unknown) => e);
  t.equal((dead as ReplError).fault, 'closed', 'a dead process refuses work at once');
});

t.test('a crash mid-response fails the request with stderr attached', async (t) => {
  const p = start();
  const err = await p.send({ cmd: 'CRASH' }).catch((e: unknown) => e);
  t.ok(err instanceof ReplError);
  t.equal((err as ReplError).fault, 'crashed');
  t.match((err as ReplError).message, /exited \(code 1/);
  t.match((err as ReplError).stderrTail, /fake-repl \d+ started/);
  t.equal(p.alive, false);
});

t.test('garbage on stdout kills the process', async (t) => {
  const p = start();
  const err = await p.send({ cmd: 'GARBAGE' }).catch((e: unknown) => e);
  t.equal((err as ReplError).fault, 'garbage');
  t.match((err as ReplError).message, /not JSON/);
  await p.exited;
  t.equal(p.alive, false);
});

t.test('growing memory past the RSS limit kills the process', async (t) => {
  const p = start({ maxRssBytes: 150 * 2 ** 20, rssPollMs: 50 });
  const err = await p.send({ cmd: 'GROW 400' }).catch((e: unknown) => e);
  t.equal((err as ReplError).fault, 'memory');
  t.match((err as ReplError).message, /memory limit/);
});

t.test('prlimit caps the address space of the REPL', async (t) => {
  const launch = fakeLaunch({}, 8192);
  t.match(launch.argv[0], /prlimit$/);
  t.equal(launch.argv[1], `--as=${8192 * 2 ** 20}`);
  const p = new ReplProcess({ launch, log: silent });
  t.teardown(() => p.kill());
  await p.send({ cmd: 'hello' });
  const limits = readFileSync(`/proc/${p.pid}/limits`, 'utf8');
  t.match(limits, new RegExp(`Max address space\\s+${8192 * 2 ** 20}`));
});

t.test('the child environment carries no daemon secrets', async (t) => {
  const launch = fakeLaunch();
  process.env.LEAN_TOOL_API_KEYS = 'secret-secret';
  const env = (await import('../../src/backend/process/launch.ts')).childEnv(process.env);
  delete process.env.LEAN_TOOL_API_KEYS;
  t.notOk('LEAN_TOOL_API_KEYS' in env);
  t.ok(launch.env.PATH);
});

t.test('no process group is left behind', async (t) => {
  t.ok(await waitFor(() => liveProcessGroups().length === 0), `live: ${liveProcessGroups().join(',')}`);
});
