/**
 * Proof search over /v1/stream, driven by the project's recorded REPL on the real REPL's
 * transcripts (proof_step, proof_branching, tactic_mode_sorry, pickle_proof_state_1/_env,
 * unknown_proof_state at several tags): branching, deleting, finishing with the REPL's
 * "Completed", the step cache, and unknown states. Every goal and status compared is read from
 * the recording, never typed here, and each test ends asserting the recorded REPL refused nothing.
 */
import t from 'tap';
import { rawStream, recorded, recordedAnswers, recordingsSkip, SEARCH_ENV, searchDaemon } from './helpers.ts';

const TAGS = ['v4.24.0', 'v4.28.0', 'v4.33.0-rc2'];
const skip = recordingsSkip(...TAGS, 'v4.21.0', 'v4.32.0');

t.test('a branching search over /v1/stream: start, two branches, delete one, finish the other', { skip }, async (t) => {
  for (const tag of TAGS) {
    const rec = recordedAnswers(tag, 'proof_step');
    const d = await searchDaemon(t, tag);
    const s = await rawStream(d.url);
    const start = await s.call('goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' });
    t.equal(start.event, 'result', `${tag}: started`);
    const root = start.result.states;
    t.equal(root.length, 1, `${tag}: one sorry, one state`);
    const recordedSorry = (rec[0]!.sorries as { goal: string; pos: unknown }[])[0]!;
    t.same(root[0].goals, [recordedSorry.goal], `${tag}: the root goal is the recorded sorry's`);
    t.same(root[0].pos, recordedSorry.pos, `${tag}: at the recorded position (no header lines in this content)`);
    t.match(root[0].state, /^st_/, 'an opaque id, not the REPL index');

    const branches = await s.call('goal.tactic', {
      state: root[0].state,
      tactics: ['apply Int.natAbs', 'have t : Nat := 42'],
    });
    const [a, b] = branches.result.results;
    t.ok(a.ok && b.ok, `${tag}: both tactics answered`);
    t.same(a.goals, rec[1]!.goals, `${tag}: branch 1 has the recorded goals`);
    t.same(b.goals, rec[2]!.goals, `${tag}: branch 2 has the recorded goals`);
    t.equal(a.proofStatus, rec[1]!.proofStatus);
    t.not(a.state, b.state);

    const del = await s.call('goal.delete', { states: [a.state, 'st_never'] });
    t.same(del.result, { deleted: 1, unknown: ['st_never'] });
    const gone = await s.call('goal.tactic', { state: a.state, tactics: ['exact 0'] });
    t.equal(gone.event, 'error', 'a deleted state is unknown');
    t.equal(gone.error.code, 'invalid_request');
    t.equal(gone.error.details[0].field, 'request.state');

    const done = await s.call('goal.tactic', { state: b.state, tactics: ['exact t'] });
    const fin = done.result.results[0];
    t.equal(fin.proofStatus, rec[3]!.proofStatus, `${tag}: the recorded status`);
    t.equal(fin.proofStatus, 'Completed', `${tag}: the REPL's kernel-checked "Completed"`);
    t.same(fin.goals, []);
    t.same(done.result.rebuilt, []);

    const stat = (await s.call('goal.stat', {})).result;
    t.equal(stat.connection.states, 3, 'root, branch 2 and the finished state are live');
    t.equal(stat.processes.length, 1, "the process of the search's last message");
    t.equal(stat.processes[0].liveStates, 3);
    t.equal(stat.daemon.processes, 0, 'no process is held between messages');
    // The figure of docs/proof-search.md's transcript: the three live states' texts (registry.ts, `stateBytes`).
    t.equal(stat.caller.bytes, 900, 'bytes held: tactics and goals of the live states, the root its command');
    await s.close();
    await d.close();
    t.same(d.refusals(), [], `${tag}: every answer came from a recording`);
  }
});

t.test('theorem mode: the named theorem is the goal (proof_branching, linear to Completed)', { skip }, async (t) => {
  const tag = 'v4.28.0';
  const rec = recordedAnswers(tag, 'proof_branching');
  const d = await searchDaemon(t, tag);
  const s = await rawStream(d.url);
  const content = 'theorem complex_and (p q r : Prop) (h1 : p ∧ q) (h2 : q → r) : p ∧ r := by sorry';
  const start = await s.call('goal.start', { environment: SEARCH_ENV, content, theorem: 'complex_and' });
  let state = start.result.states[0].state;
  const steps = ['apply And.intro', 'exact h1.left', 'apply h2', 'exact h1.right'];
  for (const [i, tactic] of steps.entries()) {
    const r = (await s.call('goal.tactic', { state, tactics: [tactic] })).result.results[0];
    t.same(r.goals, rec[i + 1]!.goals, `step ${i + 1}: recorded goals`);
    t.equal(r.proofStatus, rec[i + 1]!.proofStatus);
    state = r.state;
  }
  const missing = await s.call('goal.start', { environment: SEARCH_ENV, content, theorem: 'nope' });
  t.equal(missing.error.code, 'invalid_request', 'a theorem the content does not declare');
  await s.close();
  t.same(d.refusals(), []);
});

t.test(
  'the step cache: the same (root, path, tactic) on another connection is answered without Lean',
  { skip },
  async (t) => {
    const tag = 'v4.28.0';
    const d = await searchDaemon(t, tag);
    const one = await rawStream(d.url);
    const r1 = await one.call('goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' });
    const s1 = (await one.call('goal.tactic', { state: r1.result.states[0].state, tactics: ['have t : Nat := 42'] }))
      .result.results[0];
    t.equal(s1.cached, false);
    await one.close();
    const two = await rawStream(d.url);
    const r2 = await two.call('goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' });
    const s2 = (await two.call('goal.tactic', { state: r2.result.states[0].state, tactics: ['have t : Nat := 42'] }))
      .result.results[0];
    t.equal(s2.cached, true, 'answered from the step cache');
    t.same(s2.goals, s1.goals);
    // The cached child was never sent: using it places it on the process by replaying its path.
    const fin = (await two.call('goal.tactic', { state: s2.state, tactics: ['exact t'] })).result.results[0];
    t.equal(fin.proofStatus, 'Completed');
    t.equal(fin.cached, false);
    await two.close();
    t.same(d.refusals(), []);
  },
);

t.test('tactic_mode_sorry: a tactic that is itself sorry, and the REPL verdict it gets', { skip }, async (t) => {
  for (const tag of ['v4.21.0', 'v4.28.0', 'v4.32.0']) {
    const rec = recordedAnswers(tag, 'tactic_mode_sorry');
    const d = await searchDaemon(t, tag);
    const s = await rawStream(d.url);
    const start = await s.call('goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' });
    const r = (await s.call('goal.tactic', { state: start.result.states[0].state, tactics: ['sorry'] })).result
      .results[0];
    t.equal(r.proofStatus, rec[1]!.proofStatus, `${tag}: recorded status`);
    t.not(r.proofStatus, 'Completed', 'a sorry never completes a proof');
    t.same(
      r.sorries,
      (rec[1]!.sorries as { goal: string }[]).map((x) => x.goal),
      'the goal of the sorry, not a state',
    );
    await s.close();
    await d.close();
    t.same(d.refusals(), [], `${tag}: recorded`);
  }
});

// pickle_proof_state_1/_env ran under `import Lean`: the service sends that header with its probe, which no
// transcript recorded, so the search cannot start on recordings (it once did on an invented header answer). The
// recorded answers on unpickled copies are asserted directly in recorded-states.test.ts.
t.test(
  'pickle_proof_state_1/_env: a search under `import Lean` is refused at its header, never answered',
  { skip },
  async (t) => {
    for (const tag of ['v4.21.0', 'v4.28.0', 'v4.33.0-rc2']) {
      const x = recorded(tag, 'pickle_proof_state_1');
      const content = `${String(x[0]!.request.cmd)}\n${String(x[1]!.request.cmd)}`;
      const d = await searchDaemon(t, tag);
      const s = await rawStream(d.url);
      const start = await s.call('goal.start', { environment: SEARCH_ENV, content, ignore_imports: false });
      t.match(
        start,
        { event: 'error', error: { message: /Lean failed to start/ } },
        `${tag}: no search state on an unrecorded header`,
      );
      // Read before closing: the daemon's close removes the refusals file.
      t.match(d.refusals(), [/no recording of the header with the service's probe "import Lean\\n#print List\.cons"/]);
      await s.close();
      await d.close();
    }
  },
);

t.test('unknown_proof_state: an id the connection does not hold never reaches the REPL', { skip }, async (t) => {
  const tag = 'v4.28.0';
  const d = await searchDaemon(t, tag);
  const s = await rawStream(d.url);
  const r = await s.call('goal.tactic', { state: 'st_1', tactics: ['exact 42'] });
  t.equal(r.error.code, 'invalid_request');
  t.match(r.error.message, /no live proof search state/);
  const other = await rawStream(d.url);
  const start = await other.call('goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' });
  const foreign = await s.call('goal.tactic', { state: start.result.states[0].state, tactics: ['exact 42'] });
  t.equal(foreign.error.code, 'invalid_request', "another connection's state is unknown here");
  const bad = await s.call('goal.tactic', { state: 'x', tactics: [] });
  t.equal(bad.error.details[0].field, 'request.tactics', 'validated by the contract');
  await s.close();
  await other.close();
  t.same(d.refusals(), [], 'the REPL was asked nothing unrecorded');
});

t.test(
  'caps: a state past search.maxDepth, and a connection past its state cap, answer kind "limit"',
  { skip },
  async (t) => {
    const tag = 'v4.28.0';
    const d = await searchDaemon(t, tag, { search: { maxDepth: 1, maxStatesPerCaller: 3 } });
    const s = await rawStream(d.url);
    const root = (await s.call('goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' })).result
      .states[0].state;
    const two = (
      await s.call('goal.tactic', {
        state: root,
        tactics: ['apply Int.natAbs', 'have t : Nat := 42', 'apply Int.natAbs'],
      })
    ).result.results;
    t.same(
      two.map((r: { ok: boolean; kind?: string }) => r.ok || r.kind),
      [true, true, 'limit'],
      'the third state is over the connection cap of 3',
    );
    const deep = (await s.call('goal.tactic', { state: two[1].state, tactics: ['exact t'] })).result.results[0];
    t.equal(deep.kind, 'limit', 'one tactic deep is the limit');
    t.match(deep.error, /search\.maxDepth/);
    const again = await s.call('goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' });
    t.equal(again.error.code, 'invalid_request', 'a start over the cap is refused');
    t.match(again.error.message, /maxStatesPerCaller/);
    await s.close();
  },
);
