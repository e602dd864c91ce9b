/**
 * Best-first proof search through the daemon (docs/proof-search.md):
 * `node --import tsx examples/best-first-search.ts` with the daemon running
 * (SERVICE_API_URL, default http://127.0.0.1:8080; SERVICE_ENVIRONMENT, default lean-4.28.0).
 *
 * Each state's score is its number of open goals plus a little for depth; the best state is
 * expanded with every candidate tactic at once (one `goal.tactic` message; the candidates are a
 * fixed list, or a policy's proposals for the state's goals, as a model would make), children that
 * made no progress or carry errors are dropped, expanded states are deleted, and the search
 * stops at the first state the REPL calls "Completed".
 */
import { serviceEndpoint } from '../src/client/client.ts';
import { ProofSearch, ProofSearchError } from '../src/client/proof-search.ts';

export interface Found {
  proof: string[];
  expanded: number;
}

interface Node {
  state: string;
  goals: readonly string[];
  path: string[];
}

/** The tactics to try at a state: the same list everywhere, or proposed from its goals. */
export type Candidates = readonly string[] | ((goals: readonly string[]) => readonly string[]);

export async function bestFirst(
  search: ProofSearch,
  content: string,
  tactics: Candidates,
  opts: { theorem?: string; maxExpansions?: number } = {},
): Promise<Found | undefined> {
  const start = await search.start(content, opts.theorem ? { theorem: opts.theorem } : {});
  const open: Node[] = start.states.map((s) => ({ state: s.state, goals: s.goals, path: [] }));
  const score = (n: Node) => n.goals.length + 0.1 * n.path.length;
  const propose = typeof tactics === 'function' ? tactics : () => tactics;
  for (let expanded = 0; open.length > 0 && expanded < (opts.maxExpansions ?? 100); expanded++) {
    open.sort((a, b) => score(a) - score(b));
    const best = open.shift()!;
    const candidates = propose(best.goals);
    const { results } = candidates.length > 0 ? await search.tactic(best.state, [...candidates]) : { results: [] };
    const dead: string[] = [best.state];
    for (const r of results) {
      if (!r.ok) continue;
      const proof = [...best.path, r.tactic];
      if (r.proofStatus === 'Completed') return { proof, expanded: expanded + 1 };
      const failed = r.messages.some((m) => m.severity === 'error') || r.goals.length === 0;
      if (failed) dead.push(r.state);
      else open.push({ state: r.state, goals: r.goals, path: proof });
    }
    await search.delete(dead);
  }
  return undefined;
}

async function main(): Promise<void> {
  const environment = process.env.SERVICE_ENVIRONMENT ?? 'lean-4.28.0';
  await using search = await ProofSearch.connect({ environment });
  const found = await bestFirst(search, 'theorem swap (p q : Prop) : p ∧ q → q ∧ p := by sorry', [
    'intro h',
    'constructor',
    'exact h.2',
    'exact h.1',
    'exact h.right',
    'exact h.left',
  ]);
  console.log(found ? `proved in ${found.expanded} expansions:\n  ${found.proof.join('\n  ')}` : 'no proof found');
}

/**
 * What went wrong, as one line that says what to do: no daemon, or an environment that cannot run
 * Lean (proof search elaborates every tactic), rather than an uncaught stack trace.
 */
export function failureLine(e: unknown, url: string): string {
  const code = (e as { code?: unknown }).code;
  if (code === 'ECONNREFUSED')
    return `best-first-search: no daemon at ${url}: start it with \`npm start\` (or set SERVICE_API_URL)`;
  if (e instanceof ProofSearchError && code === 'environment_unavailable')
    return `best-first-search: proof search needs Lean: ${e.message} (set up an environment with \`npm run lean:setup\`, or choose one with SERVICE_ENVIRONMENT)`;
  return `best-first-search: ${e instanceof Error ? e.message : String(e)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await main();
  } catch (e) {
    process.stderr.write(`${failureLine(e, serviceEndpoint({}).url)}\n`);
    process.exitCode = 1;
  }
}
