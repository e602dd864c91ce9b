/**
 * A header that only adds imports the environment's own header loaded (src/backend/loaded-imports.ts):
 * which headers qualify, when Lean's answers are trusted, that each question is asked once, and that
 * the backend serves such a request on the own header's processes (the fake REPL answers the module
 * probe from FAKE_REPL_MODULES, in the shape the probe expects of Lean) and every other one as before.
 */
import t, { type Test } from 'tap';
import { LeanBackend, type BackendLimits, type ElabJob } from '../../src/backend/index.ts';
import { LoadedImports, MAX_ADDED, type AskOwnHeader } from '../../src/backend/loaded-imports.ts';
import { addedImports } from '../../src/backend/session/module-probe.ts';
import { fakeEnvironment, fakeBackendLimits, fakeLaunch, silent } from './fake.ts';

const OWN = 'import Mathlib\nimport Aesop';

t.test('a header qualifies only as the own statements in order, then plain imports', async (t) => {
  t.same(addedImports(OWN, `${OWN}\nimport Qq`), ['Qq']);
  t.same(addedImports(OWN, `${OWN}\nimport Qq\nimport Plausible.Functions`), ['Qq', 'Plausible.Functions']);
  t.same(addedImports('', 'import Qq'), ['Qq'], 'an environment without imports');
  t.equal(addedImports(OWN, OWN), undefined, 'the own header itself');
  t.equal(addedImports(OWN, 'import Mathlib'), undefined, 'fewer imports');
  t.equal(addedImports(OWN, 'import Qq\nimport Mathlib\nimport Aesop'), undefined, 'an added module first');
  t.equal(addedImports(OWN, 'import Aesop\nimport Mathlib\nimport Qq'), undefined, 'the own ones reordered');
  t.equal(addedImports(OWN, `${OWN}\npublic import Qq`), undefined, 'a modifier');
  t.equal(addedImports(OWN, `${OWN}\nimport all Qq`), undefined, '`all`');
  t.equal(addedImports(OWN, `module\n${OWN}\nimport Qq`), undefined, 'a module');
  t.equal(addedImports(`module\n${OWN}`, `module\n${OWN}\nimport Qq`), undefined, 'a module environment');
  t.equal(addedImports('prelude', 'prelude\nimport Qq'), undefined, 'prelude');
});

/** An `ask` answering each probe from `loaded` (the two known questions as Lean would, unless `distrust`). */
function asker(loaded: string[], o: { distrust?: boolean; fail?: Error } = {}) {
  const asked: string[][] = [];
  const ask: AskOwnHeader = async (texts) => {
    asked.push(texts);
    if (o.fail) throw o.fail;
    return texts.map((text) => {
      const m = /`(.+)\)\.isSome$/.exec(text)![1]!;
      const yes = o.distrust ? true : m === 'Init.Prelude' || loaded.includes(m);
      return [{ severity: 'info', data: String(yes) }];
    });
  };
  return { ask, asked };
}

const never = new AbortController().signal;

t.test('asked once: loaded modules serve on the own header, others keep theirs', async (t) => {
  const l = new LoadedImports();
  const { ask, asked } = asker(['Qq']);
  const qq = `${OWN}\nimport Qq`;
  t.equal(await l.served('e', OWN, qq, ask, never), OWN);
  t.equal(asked.length, 1);
  t.equal(asked[0]!.length, 3, 'the two known questions and Qq');
  t.equal(await l.served('e', OWN, `-- a comment\n${qq}`, ask, never), OWN, 'the same header with trivia');
  t.equal(asked.length, 1, 'remembered');
  const bat = `${OWN}\nimport Batteries`;
  t.equal(await l.served('e', OWN, bat, ask, never), bat, 'not loaded: its own header');
  t.same(asked[1], [asked[0]![2]!.replace('Qq', 'Batteries')], 'only the new module asked');
  t.equal(await l.served('e', OWN, bat, ask, never), bat);
  t.equal(asked.length, 2, 'a "no" is remembered too');
  t.equal(await l.served('e', OWN, qq, ask, never), OWN, 'the probe still trusted after a later question');
  const both = `${OWN}\nimport Plausible\nimport Qq`;
  t.equal(await l.served('e', OWN, both, ask, never), both, 'Plausible is not loaded here');
  t.same(asked[2], [asked[0]![2]!.replace('Qq', 'Plausible')], 'only the module not known yet');
  t.equal(await l.served('other-env', OWN, qq, ask, never), OWN);
  t.equal(asked.length, 4, 'per environment');
  t.equal(await l.served('e', OWN, 'import Qq', ask, never), 'import Qq', 'not a superset: never asked');
  const many = (n: number) => [OWN, ...Array.from({ length: n }, (_, i) => `import M${i}`)].join('\n');
  t.equal(
    await l.served('e', OWN, many(MAX_ADDED + 1), ask, never),
    many(MAX_ADDED + 1),
    'too many added: never asked',
  );
  t.equal(asked.length, 4);
  const atCap = asker(Array.from({ length: MAX_ADDED }, (_, i) => `M${i}`));
  t.equal(
    await new LoadedImports().served('e', OWN, many(MAX_ADDED), atCap.ask, never),
    OWN,
    'as many as allowed: asked',
  );
  t.equal(atCap.asked[0]!.length, MAX_ADDED + 2, 'every added module, and the two known questions');
  // Two modules asked together, answered each at its own place: Batteries no, Qq yes.
  const m = new LoadedImports();
  const two = asker(['Qq']);
  const bq = `${OWN}\nimport Batteries\nimport Qq`;
  t.equal(await m.served('e', OWN, bq, two.ask, never), bq);
  t.equal(await m.served('e', OWN, qq, two.ask, never), OWN, 'Qq read from its own answer');
  t.equal(two.asked.length, 1);
});

t.test('answers Lean does not give as expected are never trusted', async (t) => {
  const l = new LoadedImports();
  const { ask, asked } = asker(['Qq'], { distrust: true });
  const qq = `${OWN}\nimport Qq`;
  t.equal(await l.served('e', OWN, qq, ask, never), qq, 'a made-up module "loaded": nothing is trusted');
  t.equal(await l.served('e', OWN, `${OWN}\nimport Plausible`, ask, never), `${OWN}\nimport Plausible`);
  t.equal(asked.length, 1, 'and never asked again');
  const silentLean = new LoadedImports();
  const none: AskOwnHeader = async (texts) => texts.map(() => []);
  t.equal(await silentLean.served('e', OWN, qq, none, never), qq, 'no answer: its own header');
  // The known questions answered as expected, the module's not: unknown is "not loaded".
  const garbled: AskOwnHeader = async (texts) =>
    texts.map((text, i) =>
      i === 0
        ? [{ severity: 'info', data: 'true' }]
        : i === 1
          ? [{ severity: 'info', data: 'false' }]
          : [{ severity: 'info', data: `maybe ${text.length}` }],
    );
  t.equal(
    await new LoadedImports().served('e', OWN, qq, garbled, never),
    qq,
    'a module answered otherwise: its own header',
  );
  // Init.Prelude said not loaded: the probe is not what the daemon takes it for.
  const noInit: AskOwnHeader = async (texts) =>
    texts.map((_, i) => [{ severity: 'info', data: i < 2 ? 'false' : 'true' }]);
  t.equal(await new LoadedImports().served('e', OWN, qq, noInit, never), qq, 'Init.Prelude "not loaded": untrusted');
});

t.test('one question at a time; a failed one leaves the request on its header; a deadline stays one', async (t) => {
  const l = new LoadedImports();
  const { ask, asked } = asker(['Qq']);
  const qq = `${OWN}\nimport Qq`;
  const both = await Promise.all([l.served('e', OWN, qq, ask, never), l.served('e', OWN, qq, ask, never)]);
  t.same(both, [OWN, OWN]);
  t.equal(asked.length, 1, 'the second waited for the first question');
  // A question for other modules in flight: waited for, then this request's own asked.
  let open: () => void = () => {};
  const gate = new Promise<void>((r) => (open = r));
  const slow = asker(['Qq', 'Plausible']);
  const gated: AskOwnHeader = async (texts, sig) => {
    await gate;
    return slow.ask(texts, sig);
  };
  const g = new LoadedImports();
  const first = g.served('e', OWN, qq, gated, never);
  const second = g.served('e', OWN, `${OWN}\nimport Plausible`, gated, never);
  open();
  t.same(await Promise.all([first, second]), [OWN, OWN]);
  t.same(
    slow.asked.map((a) => a.length),
    [3, 1],
    'the second asked only its own module, after the first',
  );
  const failing = asker([], { fail: new Error('Lean crashed') });
  t.equal(await new LoadedImports().served('e', OWN, qq, failing.ask, never), qq);
  const ac = new AbortController();
  const late = asker([], { fail: new Error('deadline') });
  ac.abort(new Error('deadline'));
  await t.rejects(new LoadedImports().served('e', OWN, qq, late.ask, ac.signal), /deadline/);
});

const env = fakeEnvironment();
const limits = fakeBackendLimits({ minWarm: 1, maxSessions: 2 });
const job = (header: string): ElabJob => ({
  header,
  commands: [{ text: 'MSG info done', origin: { line: 3, column: 0 } }],
});
const backend = (tt: Test, over: Partial<BackendLimits> = {}) => {
  const b = new LeanBackend({
    limits: { ...limits, ...over },
    log: silent,
    launch: () => fakeLaunch({ FAKE_REPL_MODULES: 'Init.Prelude,Qq' }),
  });
  tt.teardown(() => b.destroy());
  return b;
};
const headersOf = (b: LeanBackend) => Object.keys(b.stats()['lean-test']?.headers ?? {}).sort();

t.test('the backend: a loaded module rides the own processes, another header starts its own', async (t) => {
  const b = backend(t);
  const signal = AbortSignal.timeout(20_000);
  const own = await b.elaborate(env, job('import Mathlib'), { signal });
  const qq = await b.elaborate(env, job('import Mathlib\nimport Qq'), { signal });
  t.equal(qq.commands[0]!.messages[0]!.text, 'done', 'answered');
  t.same(headersOf(b), ['import Mathlib'], 'no process for `import Mathlib; import Qq`');
  t.equal(qq.session, own.session, 'on the own header’s process');
  await b.elaborate(env, job('import Mathlib\nimport Batteries'), { signal });
  t.same(
    headersOf(b),
    ['import Mathlib', 'import Mathlib\nimport Batteries'],
    'Batteries is not loaded: a process of its own',
  );
  const off = backend(t, { reuseLoadedImports: false });
  await off.elaborate(env, job('import Mathlib\nimport Qq'), { signal });
  t.same(headersOf(off), ['import Mathlib\nimport Qq'], 'switched off: a process of its own, as before');
});
