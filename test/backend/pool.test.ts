/** Sessions and the backend over the fake REPL: prefix reuse, deadlines, faults, replacement (the pool mechanism: pool-mechanism.test.ts). */
import t from 'tap';
import { LeanBackend, LeanFailure } from '../../src/backend/index.ts';
import { NO_LIMITS } from '../../src/backend/process/launch.ts';
import { liveProcessGroups, ReplProcess } from '../../src/backend/process/repl-process.ts';
import { chainKeys, rootKey } from '../../src/backend/session/keys.ts';
import { LeanSession } from '../../src/backend/session/session.ts';
import { fakeEnvironment, fakeLaunch, silent, waitFor } from './fake.ts';

const sessionOpts = (extraEnv: Record<string, string> = {}) => ({
  spawn: () => new ReplProcess({ launch: fakeLaunch(extraEnv), log: silent }),
  log: silent,
  prefixEntries: 100,
});
const cmds = (texts: string[]) => {
  const keys = chainKeys(rootKey('import Mathlib'), texts);
  return texts.map((text, i) => ({ key: keys[i]!, text }));
};

t.test('a session elaborates the header once and reuses a shared prefix', async (t) => {
  const s = await LeanSession.open(sessionOpts(), 'import Mathlib');
  t.teardown(() => s.kill());
  const first = await s.run('import Mathlib', cmds(['def a := 1', 'def b := 2', 'theorem x : True := trivial']));
  t.same(
    first.outcomes.map((o) => [o.env, o.cached]),
    [
      [1, false],
      [2, false],
      [3, false],
    ],
    'env 0 is the header; each command builds on the previous',
  );
  const second = await s.run('import Mathlib', cmds(['def a := 1', 'def b := 2', 'theorem y : True := trivial']));
  t.same(
    second.outcomes.map((o) => [o.env, o.cached]),
    [
      [1, true],
      [2, true],
      [4, false],
    ],
    'only the differing command is sent',
  );
  t.equal(
    s.prefixLength(
      rootKey('import Mathlib'),
      cmds(['def a := 1', 'def c := 3']).map((c) => c.key),
    ),
    1,
  );
  t.equal(s.prefixLength(rootKey('import Other'), []), -1, 'an unknown root holds no prefix');
  const other = await s.run('import Other', cmds(['def a := 1']));
  t.equal(other.root.env, 5, 'a different header is elaborated as a new root (slow path)');
});

t.test('a header that fails to elaborate means the session does not open', async (t) => {
  await t.rejects(
    LeanSession.open(sessionOpts({ FAKE_REPL_HEADER_FAIL: '1' }), 'import Nope'),
    /header failed to elaborate/,
  );
});

const env = fakeEnvironment();
const limits = {
  minWarm: 0,
  maxSessions: 1,
  maxUses: 100,
  maxRssMb: 4096,
  sandbox: 'none' as const,
  limits: NO_LIMITS,
  prefixEntries: 1000,
  startupTimeoutSeconds: 30,
  rssPollMs: 200,
  killGraceSeconds: 0.2,
};

t.test(
  'backend: a command Lean does not stop is killed after the deadline and grace; the next request gets a fresh session, never a dead one',
  async (t) => {
    const b = new LeanBackend({ limits, log: silent, launch: () => fakeLaunch() });
    t.teardown(() => b.destroy());
    const origin = { line: 1, column: 0 };
    // Warm a session first, so the deadline below lands on a running command, not on a slow start.
    await b.elaborate(
      env,
      { header: 'import Mathlib', commands: [{ text: 'def warm := 1', origin }] },
      { signal: AbortSignal.timeout(5000) },
    );
    const err = await b
      .elaborate(
        env,
        { header: 'import Mathlib', commands: [{ text: 'HANG', origin }] },
        { signal: AbortSignal.timeout(200) },
      )
      .catch((e: unknown) => e);
    t.match(String(err), /timeout|abort/i);
    const ok = await b.elaborate(
      env,
      { header: 'import Mathlib', commands: [{ text: 'MSG warning hello', origin: { line: 7, column: 2 } }] },
      { signal: AbortSignal.timeout(5000) },
    );
    t.same(
      ok.commands[0]!.messages,
      [{ severity: 'warning', pos: { line: 7, column: 2 }, endPos: { line: 7, column: 3 }, text: 'hello' }],
      'messages come back on content positions',
    );
    t.equal(b.stats()['lean-test']!.retired, 1);
  },
);

t.test('backend: a crash is a LeanFailure, and the session is replaced', async (t) => {
  const b = new LeanBackend({ limits, log: silent, launch: () => fakeLaunch() });
  t.teardown(() => b.destroy());
  const origin = { line: 1, column: 0 };
  const err = await b
    .elaborate(
      env,
      { header: 'import Mathlib', commands: [{ text: 'CRASH', origin }] },
      { signal: AbortSignal.timeout(5000) },
    )
    .catch((e: unknown) => e);
  t.ok(err instanceof LeanFailure);
  t.equal((err as LeanFailure).fault, 'crashed');
  const again = await b.elaborate(
    env,
    { header: 'import Mathlib', commands: [{ text: 'def ok := 1', origin }] },
    { signal: AbortSignal.timeout(5000) },
  );
  t.equal(again.sent, 1);
});

t.test('backend: prefix reuse across requests (the second sends fewer commands)', async (t) => {
  const b = new LeanBackend({ limits, log: silent, launch: () => fakeLaunch() });
  t.teardown(() => b.destroy());
  const o = { line: 1, column: 0 };
  const job = (last: string) => ({
    header: 'import Mathlib',
    commands: ['def a := 1', 'def b := 2', 'lemma c : a = 1 := rfl', last].map((text) => ({ text, origin: o })),
  });
  const r1 = await b.elaborate(env, job('theorem t1 : True := trivial'), { signal: AbortSignal.timeout(5000) });
  const r2 = await b.elaborate(env, job('theorem t2 : True := trivial'), { signal: AbortSignal.timeout(5000) });
  t.same([r1.sent, r1.reused], [4, 0]);
  t.same([r2.sent, r2.reused], [1, 3]);
});

t.test(
  "backend: a tail shares its command's input, its answers come back apart, and only that input reuses it",
  async (t) => {
    const b = new LeanBackend({ limits, log: silent, launch: () => fakeLaunch() });
    t.teardown(() => b.destroy());
    const o = { line: 1, column: 0 };
    const tail = { text: 'MSG info answer', origin: { line: 9, column: 0 } };
    const chained = {
      header: 'import Mathlib',
      commands: [
        { text: 'def a := 1', origin: o },
        { text: 'MSG info own', origin: o, tail },
      ],
    };
    const signal = () => AbortSignal.timeout(5000);
    const r1 = await b.elaborate(env, chained, { signal: signal() });
    t.same([r1.sent, r1.reused], [2, 0], 'one input for the command and its tail');
    t.same(
      r1.commands[1]!.messages.map((m) => [m.text, m.pos.line]),
      [['own', 1]],
      "the command's own line",
    );
    t.same(
      r1.commands[1]!.tail?.map((m) => [m.text, m.pos.line]),
      [['answer', 9]],
      "the tail's, at the tail's origin",
    );
    t.equal(r1.commands[0]!.tail, undefined, 'no tail asked, none answered');
    // A request that continues after the command (no tail on it): the environment after the tail is not reused for it.
    const longer = {
      header: 'import Mathlib',
      commands: [
        { text: 'def a := 1', origin: o },
        { text: 'MSG info own', origin: o },
        { text: 'def z := 3', origin: o, tail },
      ],
    };
    const r2 = await b.elaborate(env, longer, { signal: signal() });
    t.same([r2.sent, r2.reused], [2, 1], 'the command sent again on its own');
    const r3 = await b.elaborate(env, chained, { signal: signal() });
    t.same([r3.sent, r3.reused], [0, 2], 'the same input: reused whole');
    t.same(
      r3.commands[1]!.tail?.map((m) => m.text),
      ['answer'],
      'and read apart again',
    );
  },
);

t.test('no REPL process survives these tests', async (t) => {
  t.ok(await waitFor(() => liveProcessGroups().length === 0), `live groups: ${liveProcessGroups().join(',')}`);
});
