/**
 * Jobs asked while an equal one runs (src/backend/runs-in-flight.ts): they wait for that run and take its answer
 * through the comment memo, or run themselves when it gives none; a waiting job's deadline, client and session
 * readiness stay its own. Through LeanBackend over the fake REPL (processes only; no Lean result is read).
 */
import { getEventListeners } from 'node:events';
import t, { type Test } from 'tap';
import { LeanBackend, type ElabJob } from '../../src/backend/index.ts';
import { RunInFlight, RunsInFlight } from '../../src/backend/runs-in-flight.ts';
import { leanRunning, onSessionReady } from '../../src/sync/signal-marks.ts';
import { fakeBackendLimits, fakeEnvironment, fakeLaunch, silent } from './fake.ts';

const ORIGIN = { line: 1, column: 0 };
const job = (text: string): ElabJob => ({ header: '', commands: [{ text, origin: ORIGIN }] });
const env = fakeEnvironment('', 'e');

function backendFor(t: Test, over: Parameters<typeof fakeBackendLimits>[0] = {}): LeanBackend {
  const backend = new LeanBackend({
    limits: fakeBackendLimits({ maxSessions: 2, ...over }),
    log: silent,
    launch: () => fakeLaunch(),
  });
  t.teardown(() => backend.destroy());
  return backend;
}

/** The commands the session that answers `CPU` has run (the fake REPL counts them). */
async function commandsRun(backend: LeanBackend, nonce: string): Promise<number> {
  const r = await backend.elaborate(env, job(`CPU ${nonce}`), { signal: new AbortController().signal });
  return (JSON.parse(r.commands[0]!.messages[0]!.text) as { commands: number }).commands;
}

t.test('equal jobs asked together: one is sent, the others wait and take its answer', async (t) => {
  const backend = backendFor(t);
  const signal = new AbortController().signal;
  const texts = ['SLEEP 200', 'SLEEP 200', '-- the same, with a comment\nSLEEP 200'];
  const results = await Promise.all(texts.map((text) => backend.elaborate(env, job(text), { signal })));
  t.same(
    results.map((r) => r.sent),
    [1, 0, 0],
  );
  t.same(backend.commentMemoStats(), { entries: 1, hits: 2, waited: 2 });
  // Commands on an environment (the header's is not counted): the one SLEEP and this CPU question, nothing else;
  // one process, where without waiting the second job would have started another.
  t.equal(backend.stats()['e']!.created, 1);
  t.equal(await commandsRun(backend, 'a'), 2);
});

t.test('progress: a job answered after waiting reports its commands done', async (t) => {
  const backend = backendFor(t);
  const signal = new AbortController().signal;
  const seen: [number, number][] = [];
  await Promise.all([
    backend.elaborate(env, job('SLEEP 100'), { signal }),
    backend.elaborate(env, job('SLEEP 100'), { signal, progress: (d, n) => seen.push([d, n]) }),
  ]);
  t.same(seen, [[1, 1]]);
});

t.test('a run that ends without an answer: the waiting job runs itself', async (t) => {
  const backend = backendFor(t, { killGraceSeconds: 0.05 });
  const gone = new AbortController();
  const stays = new AbortController();
  const first = backend.elaborate(env, job('SLEEP 300'), { signal: gone.signal });
  const second = backend.elaborate(env, job('SLEEP 300'), { signal: stays.signal });
  setTimeout(() => gone.abort(new Error('client gone')), 50);
  await t.rejects(first, /client gone/);
  const r = await second;
  t.equal(r.sent, 1, 'sent by the job that waited');
  t.equal(backend.commentMemoStats().waited, 1);
  // Failed runs are not remembered: a Lean failure is asked again by every job.
  const crash = await Promise.allSettled([
    backend.elaborate(env, job('CRASH'), { signal: stays.signal }),
    backend.elaborate(env, job('CRASH'), { signal: stays.signal }),
  ]);
  t.same(
    crash.map((c) => c.status),
    ['rejected', 'rejected'],
  );
  t.equal(backend.commentMemoStats().waited, 2, 'the second crash waited for the first, then ran');
});

t.test('a waiting job whose signal aborts leaves at once; the run goes on for its own job', async (t) => {
  const backend = backendFor(t);
  const first = backend.elaborate(env, job('SLEEP 300'), { signal: new AbortController().signal });
  const impatient = new AbortController();
  const second = backend.elaborate(env, job('SLEEP 300'), { signal: impatient.signal });
  let firstDone = false;
  void first.then(() => (firstDone = true));
  setTimeout(() => impatient.abort(new Error('deadline')), 30);
  await t.rejects(second, /deadline/);
  t.notOk(firstDone, 'left before the run ended');
  const gone = new AbortController();
  gone.abort(new Error('gone before asking'));
  await t.rejects(backend.elaborate(env, job('SLEEP 300'), { signal: gone.signal }), /gone before asking/);
  t.equal(backend.commentMemoStats().waited, 1, 'a job already aborted never waited');
  t.equal((await first).sent, 1);
});

t.test('the comment memo off: nothing waits, every job runs on a session', async (t) => {
  const backend = backendFor(t, { commentMemoEntries: 0 });
  const signal = new AbortController().signal;
  const results = await Promise.all([1, 2].map(() => backend.elaborate(env, job('SLEEP 50'), { signal })));
  // Sent, or answered from the session's memory when the second finds the first's session free first (timing):
  // never the memo's answer, which names no session (0).
  t.same(
    results.map((r) => r.session > 0),
    [true, true],
  );
  t.same(backend.commentMemoStats(), { entries: 0, hits: 0, waited: 0 });
});

t.test('a waiting job is ready with the run, and Lean runs its text from then', async (t) => {
  const run = new RunInFlight();
  const early = new AbortController();
  let earlyReady = 0;
  onSessionReady(early.signal, () => earlyReady++);
  const waitEarly = run.wait(early.signal);
  t.equal(earlyReady, 0, 'not ready before the run is');
  t.notOk(leanRunning(early.signal), 'Lean does not run its text before the run is ready');
  run.ready();
  t.equal(earlyReady, 1, 'ready when the run is');
  t.ok(leanRunning(early.signal), 'and Lean runs its text from then');
  const late = new AbortController();
  let lateReady = 0;
  onSessionReady(late.signal, () => lateReady++);
  const waitLate = run.wait(late.signal);
  t.equal(lateReady, 1, 'ready at once when it comes after');
  t.ok(leanRunning(late.signal), 'a deadline now would be Lean’s timeout');
  // One request's two equal jobs, waiting on one signal: each wait ends its own mark.
  const waitLateAgain = run.wait(late.signal);
  run.end();
  await Promise.all([waitEarly, waitLate, waitLateAgain]);
  t.notOk(leanRunning(late.signal), 'not running once the run ended');
  t.notOk(leanRunning(early.signal), 'nor the one that waited first');
  t.same(getEventListeners(late.signal, 'abort'), [], 'no listener left on the signal');
  t.equal(await run.wait(new AbortController().signal), undefined, 'a run already ended is not waited for');
  const unwaited = new RunInFlight();
  unwaited.end();
  t.equal(await unwaited.wait(new AbortController().signal), undefined, 'nor one that ended before anyone waited');
  const aborted = new AbortController();
  aborted.abort(new Error('already gone'));
  await t.rejects(new RunInFlight().wait(aborted.signal), /already gone/);
});

t.test('the table: a key is free once its run ends; a newer run of the key is kept', (t) => {
  const runs = new RunsInFlight();
  const a = runs.start('k');
  t.equal(runs.find('k'), a);
  const b = runs.start('k');
  runs.end('k', a);
  t.equal(runs.find('k'), b, 'the end of an older run leaves the newer');
  runs.end('k', b);
  t.equal(runs.find('k'), undefined);
  t.equal(runs.size, 0);
  t.end();
});
