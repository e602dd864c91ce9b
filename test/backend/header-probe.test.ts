/**
 * Defect 1: a failed `import` is silent in the REPL. Lean's processHeader [lean4 v4.28.0:
 * src/Lean/Elab/Import.lean, `processHeader`] returns an empty environment and the REPL's processInput
 * [repl v4.24.0 … v4.33.0-rc2: REPL/Frontend.lean, `processInput`] drops its error, answering `{"env": 0}`.
 * The session sends `#print List.cons` after the header and reads its answer; the error shape is
 * that of repl-transcripts/dup_msg.expected.out (an unknown identifier at column 7 of `#check g`).
 */
import t from 'tap';
import { ReplProcess } from '../../src/backend/process/repl-process.ts';
import { chainKeys, rootKey } from '../../src/backend/session/keys.ts';
import { HEADER_PROBE, probedHeader, readHeaderProbe } from '../../src/backend/session/header-probe.ts';
import { LeanSession } from '../../src/backend/session/session.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';
import { fakeLaunch, silent } from './fake.ts';

const sessionOpts = (extraEnv: Record<string, string> = {}) => ({
  spawn: () => new ReplProcess({ launch: fakeLaunch(extraEnv), log: silent }),
  log: silent,
  prefixEntries: 100,
});
const DROPPED = { FAKE_REPL_IMPORT_DROPPED: '1' };

t.test('the probe follows the header on its own line; only its errors count', async (t) => {
  t.same(probedHeader('import Mathlib\nimport Aesop\n\n'), {
    cmd: `import Mathlib\nimport Aesop\n${HEADER_PROBE}`,
    probeLine: 3,
  });
  t.same(probedHeader(''), { cmd: HEADER_PROBE, probeLine: 1 });
  const p = probedHeader('import BlahBlahBlah');
  // The REPL's answer for a loaded environment, as recorded (repl/<tag>/options.expected.out), one line down.
  const ok = readHeaderProbe('import BlahBlahBlah', p, [
    {
      severity: 'info',
      pos: { line: 2, column: 0 },
      endPos: { line: 2, column: 6 },
      data: 'constructor List.cons.{u} : {α : Type u} → α → List α → List α',
    },
  ]);
  t.same(ok, { messages: [], importFailure: undefined }, 'the probe info is not a header message');
  const bad = readHeaderProbe('import BlahBlahBlah', p, [
    {
      severity: 'error',
      pos: { line: 2, column: 7 },
      endPos: { line: 2, column: 10 },
      data: 'Unknown identifier `List.cons`',
    },
  ]);
  t.match(bad.importFailure, /imports did not load \(import BlahBlahBlah\).*Unknown identifier `List.cons`/);
});

t.test('a session whose header does not import does not open, and says why', async (t) => {
  await t.rejects(
    LeanSession.open(sessionOpts(DROPPED), 'import BlahBlahBlah'),
    /header failed to import: the imports did not load \(import BlahBlahBlah\)/,
  );
});

t.test("a request's own header that does not import gives an error at the header", async (t) => {
  const s = await LeanSession.open(sessionOpts({ FAKE_REPL_IMPORT_DROPPED: 'BlahBlahBlah' }), 'import Mathlib');
  t.teardown(() => s.kill());
  const run = (header: string) =>
    s.run(
      header,
      chainKeys(rootKey(header), ['def a := 1']).map((key) => ({ key, text: 'def a := 1' })),
    );
  const loaded = await run('import Mathlib');
  t.same(loaded.root.messages, [], 'a loaded header has no messages (the probe info is removed)');
  const failed = await run('import BlahBlahBlah');
  t.equal(failed.root.messages.length, 1);
  t.match(failed.root.messages[0], {
    severity: 'error',
    pos: { line: 1, column: 0 },
    data: /imports did not load \(import BlahBlahBlah\)/,
  });
  t.ok(s.healthy, 'the session stays usable for other headers');
});

t.test('the environment becomes unavailable with the reason, over HTTP', async (t) => {
  const app = await makeApp({ launch: () => fakeLaunch(DROPPED) });
  t.teardown(() => app.close());
  const r = await app.inject({
    method: 'POST',
    url: '/api/v1/check',
    payload: { content: 'theorem t : True := trivial\n', environment: TEST_ENV, timeout_seconds: 20 },
  });
  t.equal(r.statusCode, 409, r.body);
  t.match(r.json().error.message, /failed to import/);
  const envs = (await app.inject({ method: 'GET', url: '/v1/environments' })).json() as {
    name: string;
    available: boolean;
    unavailable_reason?: string;
  }[];
  const e = envs.find((x) => x.name === TEST_ENV)!;
  t.equal(e.available, false);
  t.match(e.unavailable_reason, /imports did not load \(import Mathlib\)/);
});

// Issue 27, defect 1: a request's own header (`ignore_imports: false`) that does not import is that
// request's error at its header line; the environment (whose own header imports) stays available.
t.test("a request header's import failure is that request's error, not the environment's", async (t) => {
  const app = await makeApp({ launch: () => fakeLaunch({ FAKE_REPL_IMPORT_DROPPED: 'Mathlb' }) });
  t.teardown(() => app.close());
  const check = (content: string, ignore_imports: boolean) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/check',
      payload: { content, environment: TEST_ENV, ignore_imports, timeout_seconds: 20 },
    });
  const bad = await check('import Mathlb\n\ntheorem t : True := trivial\n', false);
  t.equal(bad.statusCode, 200, bad.body);
  const body = bad.json() as { okay: boolean; lean_messages: { errors: string[] } };
  t.equal(body.okay, false);
  t.match(body.lean_messages.errors.join('\n'), /^-:1:0: error: the imports did not load \(import Mathlb\)/m);
  const envs = (await app.inject({ method: 'GET', url: '/v1/environments' })).json() as {
    name: string;
    available: boolean;
  }[];
  t.equal(envs.find((x) => x.name === TEST_ENV)!.available, true, 'the environment stays available');
  const good = await check('theorem t : True := trivial\n', true);
  t.equal(good.statusCode, 200, good.body);
  t.equal((good.json() as { okay: boolean }).okay, true, 'other callers are served');
});

t.test("a session of a request's own header opens on a failed import; the environment's own does not", async (t) => {
  const s = await LeanSession.open(sessionOpts(DROPPED), 'import BlahBlahBlah', undefined, false);
  t.teardown(() => s.kill());
  const r = await s.run(
    'import BlahBlahBlah',
    chainKeys(rootKey('import BlahBlahBlah'), ['def a := 1']).map((key) => ({ key, text: 'def a := 1' })),
  );
  t.match(r.root.messages, [{ severity: 'error', pos: { line: 1, column: 0 }, data: /imports did not load/ }]);
});

// Issue 27, defect 14: `prelude` alone imports nothing (not even Init), so `#print List.cons` would fail there
// without any import having failed [lean4 v4.28.0: src/Lean/Elab/Import.lean, `headerToImports`].
t.test('a bare prelude header sends no probe and is no import failure', async (t) => {
  const p = probedHeader('prelude\n');
  t.same(p.cmd, 'prelude', 'no probe after it');
  // Whatever a prelude-only environment says, it is not read as an import failure.
  const v = readHeaderProbe('prelude', p, [
    { severity: 'error', pos: { line: 2, column: 7 }, endPos: null, data: 'Unknown identifier `List.cons`' },
  ]);
  t.equal(v.importFailure, undefined);
  t.equal(probedHeader('prelude\nimport Init.Core').probeLine, 3, 'with imports the probe stays');
});
