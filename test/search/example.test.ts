/**
 * The example best-first search (examples/best-first-search.ts) through the ProofSearch client,
 * driven by the recorded REPL. Its "model" proposes, for a state's goals, the tactics the
 * transcripts recorded on states with exactly those goals (read from the recordings, in an order
 * of the recordings), so every step it sends is recorded and the REPL refuses nothing:
 * - proof_step + tactic_mode_sorry: the root `⊢ Nat` has three recorded tactics (a sorry, a dead
 *   end, the proof's first step): a real branching search that drops two branches, continues the
 *   third and ends at the REPL's "Completed";
 * - proof_branching2 (two tags): a longer linear proof, found step by step.
 */
import t from 'tap';
import { bestFirst } from '../../examples/best-first-search.ts';
import { ProofSearch } from '../../src/client/proof-search.ts';
import { recorded, recordingsSkip, SEARCH_ENV, searchDaemon } from './helpers.ts';

const TAGS = ['v4.22.0', 'v4.28.0', 'v4.31.0'];
const skip = recordingsSkip(...TAGS);

const goalsKey = (goals: readonly string[]) => JSON.stringify(goals);

/** goals → the tactics `names`' transcripts at `tag` recorded on a state with those goals, in recorded order. */
function recordedPolicy(tag: string, names: readonly string[]): (goals: readonly string[]) => string[] {
  const byGoals = new Map<string, Set<string>>();
  for (const name of names) {
    const goalsOf = new Map<number, string[]>();
    for (const x of recorded(tag, name)) {
      const q = x.request;
      const at = typeof q.proofState === 'number' ? goalsOf.get(q.proofState) : undefined;
      if (typeof q.tactic === 'string' && at) {
        const set = byGoals.get(goalsKey(at)) ?? new Set();
        byGoals.set(goalsKey(at), set.add(q.tactic));
      }
      const r = x.response as {
        sorries?: { proofState?: number; goal: string }[];
        proofState?: number;
        goals?: string[];
      };
      for (const s of r.sorries ?? []) if (typeof s.proofState === 'number') goalsOf.set(s.proofState, [s.goal]);
      if (typeof r.proofState === 'number' && r.goals) goalsOf.set(r.proofState, r.goals);
    }
  }
  return (goals) => [...(byGoals.get(goalsKey(goals)) ?? [])];
}

t.test(
  'best-first search branches, drops dead ends and finishes (proof_step, tactic_mode_sorry)',
  { skip },
  async (t) => {
    const tag = 'v4.28.0';
    const names = ['proof_step', 'tactic_mode_sorry'];
    const steps = recorded(tag, 'proof_step');
    const policy = recordedPolicy(tag, names);
    const content = String(steps[0]!.request.cmd);
    t.equal(
      policy([(steps[0]!.response.sorries as { goal: string }[])[0]!.goal]).length,
      3,
      'three candidates at the root',
    );
    const d = await searchDaemon(t, tag);
    await using search = await ProofSearch.connect({ url: d.url, environment: SEARCH_ENV });
    const found = await bestFirst(search, content, policy, { maxExpansions: 10 });
    t.same(found?.proof, [steps[2]!.request.tactic, steps[3]!.request.tactic], 'the recorded proof');
    t.equal(found?.expanded, 3, 'root, the dead end `apply Int.natAbs` (no candidate), then the `have` branch');
    t.equal(
      (await search.stat()).connection.states,
      2,
      'what is left: the finished state and its parent, not yet deleted',
    );
    t.same(d.refusals(), [], 'every step was recorded');
  },
);

t.test('best-first search finds the recorded proof (proof_branching2, several tags)', { skip }, async (t) => {
  for (const tag of TAGS) {
    const x = recorded(tag, 'proof_branching2');
    const content = String(x[0]!.request.cmd);
    const recordedPath = x.slice(1).map((r) => String(r.request.tactic));
    const d = await searchDaemon(t, tag);
    await using search = await ProofSearch.connect({ url: d.url, environment: SEARCH_ENV });
    const found = await bestFirst(search, content, recordedPolicy(tag, ['proof_branching2']), { maxExpansions: 20 });
    t.same(found?.proof, recordedPath, `${tag}: the recorded proof, found by search`);
    t.equal(found?.expanded, recordedPath.length, 'one expansion per step');
    t.ok((await search.stat()).connection.states > 0, 'states of the search are held until dispose');
    await search.dispose();
    await d.close();
    t.same(d.refusals(), [], `${tag}: every step was recorded`);
  }
});
