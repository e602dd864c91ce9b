/**
 * Proof search's memory caps count per caller (an API key, or an anonymous caller by address),
 * all its connections together: a caller opening more connections gets no more states or
 * bytes, another caller is not affected, and a tactic past `search.maxTacticChars` is refused
 * before it runs. Each refusal says which cap and which setting. Driven by the stand-in REPL
 * (test/fixtures/standin-repl.mjs).
 */
import t from 'tap';
import { TEST_ENV } from '../helpers.ts';
import { rawStream, searchDaemonWith } from './helpers.ts';

const START = { environment: TEST_ENV, content: 'theorem t : P := by sorry' };

t.test("the states cap counts all of an anonymous caller's connections; another caller is not affected", async (t) => {
  const { app, url } = await searchDaemonWith('standin-repl.mjs', {}, { search: { maxStatesPerCaller: 2 } });
  t.teardown(() => app.close());
  const conns = [await rawStream(url), await rawStream(url)];
  for (const c of conns) t.teardown(() => c.close());
  t.equal((await conns[0]!.call('goal.start', START)).event, 'result');
  t.equal((await conns[1]!.call('goal.start', START)).event, 'result');
  const third = await conns[1]!.call('goal.start', START);
  t.equal(third.error?.code, 'invalid_request', 'a third state of the same caller is refused');
  t.match(third.error?.message, /this caller holds 2 live proof search states.*search\.maxStatesPerCaller/);
  const b = await rawStream(url, { authorization: 'Bearer key-b' });
  t.teardown(() => b.close());
  const mine = await b.call('goal.start', START);
  t.equal(mine.event, 'result', 'key B is another caller');
  const stat = await b.call('goal.stat', {});
  t.same(
    [stat.result.caller.states, stat.result.caller.maxStates],
    [1, 2],
    "goal.stat shows the caller's count and cap",
  );
});

t.test('a tactic past search.maxTacticChars is refused before it runs; the bytes cap stops growth', async (t) => {
  const { app, url } = await searchDaemonWith(
    'standin-repl.mjs',
    {},
    { search: { maxTacticChars: 1000, maxStateBytesPerCaller: 12_000 } },
  );
  t.teardown(() => app.close());
  const c = await rawStream(url);
  t.teardown(() => c.close());
  const root = (await c.call('goal.start', START)).result.states[0].state as string;
  const long = await c.call('goal.tactic', { state: root, tactics: ['skip', 'x'.repeat(1001)] });
  t.equal(long.error?.code, 'invalid_request');
  t.match(long.error?.message, /tactic 1 has 1001 characters, more than search\.maxTacticChars \(1000\)/);
  t.same(long.error?.details?.[0]?.field, 'request.tactics.1');
  // Each state keeps its tactic (2 bytes a character) and its path: a chain of 1000-character steps reaches the cap.
  let state = root;
  let limit: { kind?: string; error?: string } | undefined;
  for (let i = 0; i < 20 && !limit; i++) {
    const r = (await c.call('goal.tactic', { state, tactics: [`${i} ${'y'.repeat(990)}`] })).result.results[0];
    if (r.ok) {
      // Deleting the parent frees nothing: the child keeps its path.
      await c.call('goal.delete', { states: [state] });
      state = r.state;
    } else limit = r;
  }
  t.equal(limit?.kind, 'limit', 'refused once the caller holds its bytes');
  t.match(limit?.error, /this caller holds \d+ bytes of proof search states \(search\.maxStateBytesPerCaller\)/);
});
