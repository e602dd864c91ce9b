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
import { StateRegistry, stateBytes, type RegistryLimits, type StateOwner } from '../../src/search/registry.ts';
import { rebuildAll, type ReplayDeps } from '../../src/search/replay.ts';
import { newChild, newRoot, rootGroup, StateIds, type SearchState } from '../../src/search/state.ts';

const ids = new StateIds();
const group = () => rootGroup('env', 'import X', 'theorem a : True := by sorry', [0]);
let callers = 0;
const owner = (caller = `c${callers++}`): StateOwner & { dead: string[] } => {
  const dead: string[] = [];
  return { dead, caller: { id: caller }, onDeath: (s) => dead.push(...s.map((x) => x.id)) };
};
const BIG = Number.MAX_SAFE_INTEGER;
const limits = (l: Partial<RegistryLimits>): RegistryLimits => ({
  maxStatesPerCaller: BIG,
  maxStateBytesPerCaller: BIG,
  maxStates: BIG,
  maxStateBytes: BIG,
  stateTtlSeconds: 0,
  ...l,
});

t.test('registry: caps per caller and per daemon, owners, TTL', async (t) => {
  const reg = new StateRegistry(limits({ maxStatesPerCaller: 2, maxStates: 3 }));
  t.teardown(() => reg.close());
  const a = owner();
  const b = owner();
  const g = group();
  const s1 = newRoot(ids, g, 0, ['⊢ True'], undefined);
  reg.add(a, s1);
  reg.add(a, newChild(ids, s1, 'skip', ['⊢ True'], undefined));
  t.same(reg.refusal(a), {
    scope: 'this caller',
    count: '2 live proof search states',
    setting: 'search.maxStatesPerCaller',
  });
  t.equal(reg.refusal(owner(a.caller.id))?.setting, 'search.maxStatesPerCaller', "another connection of a's caller");
  reg.add(b, newRoot(ids, g, 0, ['⊢ True'], undefined));
  t.equal(reg.refusal(b, 1)?.scope, 'the daemon', 'the daemon cap binds across connections');
  t.equal(reg.get(b, s1.id), undefined, "another owner's id is unknown");
  t.same(reg.delete(a, [s1.id, s1.id]), [s1.id], 'a second delete of the same id is unknown');
  t.same(a.dead, [s1.id]);
  t.equal(s1.live, false);
  reg.closeOwner(a);
  t.equal(reg.held(a), 0);
  t.equal(reg.size, 1);

  const ttl = new StateRegistry(limits({ maxStatesPerCaller: 10, maxStates: 10, stateTtlSeconds: 60 }));
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

t.test('registry: bytes per caller count a deleted state while a live descendant keeps it', async (t) => {
  const g = group();
  const root = newRoot(ids, g, 0, ['⊢ True'], undefined);
  const mid = newChild(ids, root, 'x'.repeat(1000), ['⊢ True'], undefined);
  const leaf = newChild(ids, mid, 'skip', ['⊢ True'], undefined);
  const all = stateBytes(root) + stateBytes(mid) + stateBytes(leaf);
  const reg = new StateRegistry(limits({ maxStateBytesPerCaller: all }));
  t.teardown(() => reg.close());
  const a = owner();
  for (const s of [root, mid, leaf]) reg.add(a, s);
  t.equal(reg.account(a.caller.id).bytes, all);
  t.equal(reg.refusal(a, 1, 1)?.setting, 'search.maxStateBytesPerCaller', 'one byte more is refused');
  reg.delete(a, [root.id, mid.id]);
  t.same(reg.account(a.caller.id), { states: 1, bytes: all }, 'the path the leaf keeps is still counted');
  reg.delete(a, [leaf.id]);
  t.same(reg.account(a.caller.id), { states: 0, bytes: 0 }, 'all of it goes with the leaf');
  t.equal(reg.bytes, 0);
});

let processes = 0;
function fakeLease(): SessionLease & { destroyed: string[] } {
  const destroyed: string[] = [];
  return {
    destroyed,
    pid: 1,
    sessionId: 1,
    process: `p${processes++}`,
    healthy: true,
    alive: true,
    contended: false,
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

t.test(
  'a process the pool retires for its states: the live ones are rebuilt on another, the client is told',
  async (t) => {
    // Growth is process behaviour no recording shows: the stand-in REPL (test/fixtures/standin-repl.mjs).
    // Each message gives its process back with the states it made counted (lease.ts); the pool
    // retires it past lean.maxStates like any session, and the next message rebuilds the live states.
    const { searchDaemonWith } = await import('./helpers.ts');
    const { app, url } = await searchDaemonWith('standin-repl.mjs', {}, { lean: { maxStates: 20 } });
    t.teardown(() => app.close());
    const { ProofSearch } = await import('../../src/client/proof-search.ts');
    await using s = await ProofSearch.connect({ url, environment: 'lean-test' });
    const pools = async () => JSON.stringify((await app.inject({ method: 'GET', url: '/v1/status' })).json().pools);
    const retired = (p: string) => /retiredBy":\{[^}]*"states/.test(p);
    let state = (await s.start('theorem t : P := by sorry')).states[0]!.state;
    const step = async (tactic: string) => {
      const live = [state]; // what lives when the message starts
      const r = await s.tactic(state, tactic);
      const out = r.results[0]!;
      if (!out.ok) throw new Error(out.error);
      await s.delete(state);
      state = out.state;
      return { live, told: r.rebuilt };
    };
    // Past lean.maxStates the process drains: it serves on while its replacement warms (however long
    // that takes on a loaded machine), and retires once the replacement is ready. Wait on that order.
    for (let i = 0; i < 60 && !/"retiring":[1-9]/.test(await pools()) && !retired(await pools()); i++)
      await step(`step${i}`);
    for (let i = 0; i < 500 && !retired(await pools()); i++) await new Promise((r) => setTimeout(r, 20));
    t.match(await pools(), /retiredBy":\{[^}]*"states/, 'the pool retired it for its states (lean.maxStates)');
    // A search holds no process between messages: the next one runs on the replacement and rebuilds.
    const { live, told } = await step('after');
    t.same(told, live, 'the live state was rebuilt elsewhere, and named');
    t.ok((await s.tactic(state, 'more')).results[0]!.ok, 'and the search goes on');
  },
);
