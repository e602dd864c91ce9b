/**
 * The search's own bookkeeping, without a REPL: the registry's caps, TTL and owners, and what a
 * rebuild does with a state whose replay does not reproduce it (typed doubles: a replay that
 * answers other goals, or kills the process, is process behaviour no recording holds).
 */
import t from 'tap';
import type { SessionLease } from '../../src/backend/lease.ts';
import { ReplError } from '../../src/backend/process/repl-process.ts';
import type { ReplResponse } from '../../src/backend/protocol/schema.ts';
import { ProcessHost, ProcessSlots } from '../../src/search/host.ts';
import { StateRegistry, type StateOwner } from '../../src/search/registry.ts';
import { rebuildAll, type ReplayDeps } from '../../src/search/replay.ts';
import { newChild, newRoot, rootGroup, StateIds, type SearchState } from '../../src/search/state.ts';

const ids = new StateIds();
const group = () => rootGroup('env', 'import X', 'theorem a : True := by sorry', [0]);
const owner = (): StateOwner & { dead: string[] } => {
  const dead: string[] = [];
  return { dead, onDeath: (s) => dead.push(...s.map((x) => x.id)) };
};

t.test('registry: caps per connection and per daemon, owners, TTL', async (t) => {
  const reg = new StateRegistry({ maxStatesPerConnection: 2, maxStates: 3, stateTtlSeconds: 0 });
  t.teardown(() => reg.close());
  const a = owner();
  const b = owner();
  const g = group();
  const s1 = newRoot(ids, g, 0, ['⊢ True'], undefined);
  reg.add(a, s1);
  reg.add(a, newChild(ids, s1, 'skip', ['⊢ True'], undefined));
  t.same(reg.refusal(a), { scope: 'this connection', count: 2, setting: 'search.maxStatesPerConnection' });
  reg.add(b, newRoot(ids, g, 0, ['⊢ True'], undefined));
  t.equal(reg.refusal(b, 1)?.scope, 'the daemon', 'the daemon cap binds across connections');
  t.equal(reg.get(b, s1.id), undefined, "another owner's id is unknown");
  t.same(reg.delete(a, [s1.id, s1.id]), [s1.id], 'a second delete of the same id is unknown');
  t.same(a.dead, [s1.id]);
  t.equal(s1.live, false);
  reg.closeOwner(a);
  t.equal(reg.held(a), 0);
  t.equal(reg.size, 1);

  const ttl = new StateRegistry({ maxStatesPerConnection: 10, maxStates: 10, stateTtlSeconds: 60 });
  t.teardown(() => ttl.close());
  const c = owner();
  const old = newRoot(ids, g, 0, ['⊢ True'], undefined);
  const fresh = newRoot(ids, g, 0, ['⊢ True'], undefined);
  ttl.add(c, old);
  ttl.add(c, fresh);
  const now = Date.now();
  old.touchedAt = now - 61_000;
  t.equal(ttl.sweep(now), 1, 'only the state idle past the TTL expires');
  t.same(c.dead, [old.id]);
  t.ok(ttl.get(c, fresh.id));
});

function fakeLease(): SessionLease & { destroyed: string[] } {
  const destroyed: string[] = [];
  return {
    destroyed,
    pid: 1,
    sessionId: 1,
    healthy: true,
    command: async () => ({ env: 0, messages: [], sorries: [], cached: false }),
    step: async () => ({ type: 'error', value: { message: 'unused' } }),
    usage: () => ({ rssBytes: 0 }),
    release: () => {},
    destroy: (r) => destroyed.push(r),
  };
}

function hostWith(states: SearchState[]): ProcessHost {
  const h = new ProcessHost({
    environment: 'env',
    slots: new ProcessSlots(4),
    recycleDeadStates: 1,
    migrateReplStates: 0,
    lease: async () => fakeLease(),
  });
  for (const s of states) h.live.add(s);
  return h;
}

t.test('rebuild: a replay that gives other goals loses that state and everything below it', async (t) => {
  const g = group();
  const root = newRoot(ids, g, 0, ['⊢ True'], undefined);
  const mid = newChild(ids, root, 'skip', ['⊢ True'], undefined);
  const leaf = newChild(ids, mid, 'skip', ['⊢ True'], undefined);
  const host = hostWith([root, mid, leaf]);
  let ps = 10;
  const deps: ReplayDeps = {
    root: async () => ({ sorries: [{ goal: '⊢ True', proofState: 0 }], messages: [], cached: false }),
    step: async (): Promise<ReplResponse> => ({
      type: 'proofStep',
      value: { proofState: ps++, goals: ['⊢ False'], messages: [], sorries: [], traces: [], proofStatus: 'x' },
    }),
  };
  const report = await rebuildAll(host, deps, new AbortController().signal);
  t.same(
    report.rebuilt.map((s) => s.id),
    [root.id],
  );
  t.same(
    report.lost.map((l) => l.state.id),
    [mid.id, leaf.id],
  );
  t.match(report.lost[0]!.reason, /other goals/);
  t.match(report.lost[1]!.reason, /an ancestor could not be rebuilt/);
  t.equal(root.placement?.gen, host.gen, 'the root is placed on the new process');
});

t.test('rebuild: a replay that kills the process again loses that state, the rest goes on', async (t) => {
  const g = group();
  const root = newRoot(ids, g, 0, ['⊢ True'], undefined);
  const bad = newChild(ids, root, 'loop', ['⊢ True'], undefined);
  const good = newChild(ids, root, 'skip', ['⊢ True'], undefined);
  const host = hostWith([root, bad, good]);
  const deps: ReplayDeps = {
    root: async () => ({ sorries: [{ goal: '⊢ True', proofState: 0 }], messages: [], cached: false }),
    step: async (_l, tactic): Promise<ReplResponse> => {
      if (tactic === 'loop') throw new ReplError('aborted', 'killed');
      return {
        type: 'proofStep',
        value: { proofState: 5, goals: ['⊢ True'], messages: [], sorries: [], traces: [], proofStatus: 'x' },
      };
    },
  };
  const report = await rebuildAll(host, deps, new AbortController().signal);
  t.same(
    report.lost.map((l) => l.state.id),
    [bad.id],
  );
  t.same(report.rebuilt.map((s) => s.id).sort(), [root.id, good.id].sort());
  t.equal(host.gen, 2, 'a second fresh process after the replay killed the first');
});

t.test('a process holding mostly dead states is recycled: the live ones move, the client is told', async (t) => {
  // Growth is process behaviour no recording shows: the stand-in REPL (test/fixtures/standin-repl.mjs).
  const { searchDaemonWith } = await import('./helpers.ts');
  const { app, url } = await searchDaemonWith('standin-repl.mjs', {}, { search: { migrateReplStates: 20 } });
  t.teardown(() => app.close());
  const { ProofSearch } = await import('../../src/client/proof-search.ts');
  await using s = await ProofSearch.connect({ url, environment: 'lean-test' });
  let state = (await s.start('theorem t : P := by sorry')).states[0]!.state;
  const pid = (await s.stat()).processes[0]!.pid;
  let told: string[] = [];
  let live: string[] = [];
  for (let i = 0; i < 30 && told.length === 0; i++) {
    const r = await s.tactic(state, `step${i}`);
    const out = r.results[0]!;
    if (!out.ok) throw new Error(out.error);
    live = [state, out.state]; // the parent is deleted only after this message
    await s.delete(state);
    state = out.state;
    told = r.rebuilt;
  }
  t.same([...told].sort(), live.sort(), 'the live states were rebuilt elsewhere, and named');
  const after = await s.stat();
  t.not(after.processes[0]!.pid, pid, 'on a fresh process');
  t.ok(after.processes[0]!.deadStates < 20, 'which holds few states');
  t.ok((await s.tactic(state, 'more')).results[0]!.ok, 'and the search goes on');
});
