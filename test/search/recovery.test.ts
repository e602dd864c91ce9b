/**
 * Losing the process mid-search: a tactic past its kill deadline (the recorded REPL never
 * answers it: its typed fault RECORDED_REPL_HANG) and a crash (RECORDED_REPL_CRASH: it exits). Every live state is
 * replayed from the recordings on a fresh process and the client is told; the search then
 * finishes as recorded. Plus the lifecycle: states die with the connection, the process goes.
 * Through the TypeScript client (ProofSearch) as well as raw messages.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import { ProofSearch, ProofSearchError } from '../../src/client/proof-search.ts';
import { recordedAnswers, recordingsSkip, SEARCH_ENV, searchDaemon } from './helpers.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- stream events' JSON, read field by field
type Json = any;
const TAG = 'v4.28.0';
const skip = recordingsSkip(TAG);
const onceFile = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'search-once-')), 'first');

for (const [kind, envVar] of [
  ['timeout', 'RECORDED_REPL_HANG'],
  ['crash', 'RECORDED_REPL_CRASH'],
] as const) {
  t.test(
    `the process lost mid-search (${kind}): every state is rebuilt and the client is told`,
    { skip },
    async (t) => {
      const rec = recordedAnswers(TAG, 'proof_step');
      const d = await searchDaemon(t, TAG, {}, { [envVar]: 'exact t', RECORDED_REPL_ONCE_FILE: onceFile() });
      await using search = await ProofSearch.connect({ url: d.url, environment: SEARCH_ENV });
      const root = (await search.start('def f : Nat := by sorry')).states[0]!;
      const [a, b] = (await search.tactic(root.state, ['apply Int.natAbs', 'have t : Nat := 42'])).results;
      if (!a?.ok || !b?.ok) throw new Error('branches expected');
      const pidBefore = (await search.stat()).processes[0]!.pid;

      const lost = await search.tactic(b.state, 'exact t', { timeoutSeconds: 1 });
      const r = lost.results[0]!;
      t.equal(r.ok, false);
      if (!r.ok) t.equal(r.kind, kind, `the outcome says ${kind}`);
      t.same(
        [...lost.rebuilt].sort(),
        [root.state, a.state, b.state].sort(),
        'every live state was rebuilt, and named',
      );
      t.same(lost.lost, []);
      const stat = await search.stat();
      t.not(stat.processes[0]!.pid, pidBefore, 'on a fresh process');
      t.equal(stat.processes[0]!.liveStates, 3);

      // The rebuilt states are the same states: the search goes on from them.
      const fin = (await search.tactic(b.state, 'exact t')).results[0]!;
      t.ok(fin.ok && fin.proofStatus === rec[3]!.proofStatus, 'finished as recorded after the rebuild');
      t.same(d.refusals(), [], 'every answer, replays included, came from a recording');
    },
  );
}

t.test('a crash between messages is found at the next message and repaired there', { skip }, async (t) => {
  const d = await searchDaemon(t, TAG);
  await using search = await ProofSearch.connect({ url: d.url, environment: SEARCH_ENV });
  const root = (await search.start('def f : Nat := by sorry')).states[0]!;
  const b = (await search.tactic(root.state, 'have t : Nat := 42')).results[0]!;
  if (!b.ok) throw new Error('a state expected');
  const pid = (await search.stat()).processes[0]!.pid;
  process.kill(-pid, 'SIGKILL');
  // Between messages: once the daemon has seen the exit (its stat lists the process no more). Sent before that,
  // the message reaches the dead process and is answered as a crash of its own; a fixed pause raced this.
  while ((await search.stat()).processes.some((p) => p.pid === pid)) await new Promise((r) => setTimeout(r, 20));
  const fin = await search.tactic(b.state, 'exact t');
  t.same([...fin.rebuilt].sort(), [root.state, b.state].sort(), 'told which states were rebuilt');
  t.ok(fin.results[0]!.ok, 'and the step ran on the rebuilt state');
  t.same(d.refusals(), []);
});

t.test(
  'the client: errors are typed, dispose ends the states; no process is held between messages',
  { skip },
  async (t) => {
    const { url } = await searchDaemon(t, TAG);
    const search = await ProofSearch.connect({ url, environment: SEARCH_ENV });
    await t.rejects(search.tactic('st_nope', 'rfl'), ProofSearchError);
    const root = (await search.start('def f : Nat := by sorry')).states[0]!;
    t.ok(root.state);
    const watcher = await ProofSearch.connect({ url, environment: SEARCH_ENV });
    const held = (await watcher.stat()).daemon;
    t.same([held.states, held.processes], [1, 0], 'one state held, and no process between messages');
    await search.dispose();
    // Polled until it holds (no wall-clock bound: one that never holds fails at tap's timeout).
    while ((await watcher.stat()).daemon.states !== 0) await new Promise((r) => setTimeout(r, 50));
    t.pass('the states died with the connection');
    await watcher.dispose();
  },
);

t.test('states idle past the TTL expire', { skip }, async (t) => {
  const { url } = await searchDaemon(t, TAG, { search: { stateTtlSeconds: 0.3 } });
  await using search = await ProofSearch.connect({ url, environment: SEARCH_ENV });
  const root = (await search.start('def f : Nat := by sorry')).states[0]!;
  let gone = false;
  for (let i = 0; i < 100 && !gone; i++) {
    await new Promise((r) => setTimeout(r, 50));
    gone = (await search.stat()).connection.states === 0;
  }
  t.ok(gone, 'expired');
  const err = await search.tactic(root.state, 'exact 0').catch((e: unknown) => e);
  t.ok(err instanceof ProofSearchError && err.code === 'invalid_request', 'an expired id is unknown');
});

t.test('cancelling a running tactic kills its process; the next message rebuilds the states', { skip }, async (t) => {
  const once = onceFile();
  const { url } = await searchDaemon(t, TAG, {}, { RECORDED_REPL_HANG: 'exact t', RECORDED_REPL_ONCE_FILE: once });
  const ws = new WebSocket(`${url}/v1/stream`);
  await new Promise((r) => ws.once('open', r));
  const events: { id: string; event: string; result?: Json; error?: Json }[] = [];
  ws.on('message', (d) => events.push(JSON.parse(String(d))));
  const answer = async (id: string) => {
    for (let i = 0; i < 400; i++) {
      const e = events.find((x) => x.id === id && (x.event === 'result' || x.event === 'error'));
      if (e) return e;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no answer for ${id}`);
  };
  const send = (id: string, tool: string, request: object) => ws.send(JSON.stringify({ id, tool, request }));
  send('s', 'goal.start', { environment: SEARCH_ENV, content: 'def f : Nat := by sorry' });
  const root = (await answer('s')).result.states[0].state;
  send('h', 'goal.tactic', { state: root, tactics: ['have t : Nat := 42'] });
  const h = (await answer('h')).result.results[0].state;
  send('x', 'goal.tactic', { state: h, tactics: ['exact t'] });
  // Cancelled while the REPL runs it (the double says when it holds the tactic): cancelled before it got there, it
  // kills nothing, and a fixed pause raced that on a loaded machine.
  while (!readFileSync(once, 'utf8').includes('hanging')) await new Promise((r) => setTimeout(r, 20));
  ws.send(JSON.stringify({ id: 'x', cancel: true }));
  t.equal((await answer('x')).error.code, 'cancelled');
  send('y', 'goal.tactic', { state: h, tactics: ['exact t'] });
  const y = (await answer('y')).result;
  t.same([...y.rebuilt].sort(), [root, h].sort(), 'the states were rebuilt at the next message');
  t.equal(y.results[0].proofStatus, 'Completed');
  ws.close();
});

t.test('past the daemon-wide cap on processes in use by searches, a message waits its turn', { skip }, async (t) => {
  const { url } = await searchDaemon(t, TAG, { search: { maxProcesses: 1 } });
  await using one = await ProofSearch.connect({ url, environment: SEARCH_ENV });
  await using two = await ProofSearch.connect({ url, environment: SEARCH_ENV });
  const both = await Promise.all([one.start('def f : Nat := by sorry'), two.start('def f : Nat := by sorry')]);
  t.same(
    both.map((r) => r.states.length),
    [1, 1],
    'both served, one after the other (no queue_full)',
  );
});
