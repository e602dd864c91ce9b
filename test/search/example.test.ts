/**
 * The example best-first search (examples/best-first-search.ts) through the ProofSearch client,
 * driven by the REPL's proof_branching2 recording: it must find the recorded proof, every step of
 * it answered from the recording, and end at the REPL's "Completed". Tactics the recording does
 * not hold at a state are refused by the transcript REPL, which the search counts as failures.
 */
import t from 'tap';
import { bestFirst } from '../../examples/best-first-search.ts';
import { ProofSearch } from '../../src/client/proof-search.ts';
import { TEST_ENV } from '../helpers.ts';
import { recordingsSkip, searchDaemon, transcripts } from './helpers.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedPath } from '../shared-data.ts';

const skip = recordingsSkip();

t.test('best-first search finds the recorded proof (proof_branching2, two tags)', { skip }, async (t) => {
  for (const tag of ['v4.22.0', 'v4.31.0']) {
    const requests = readFileSync(path.join(sharedPath('recorded/repl')!, tag, 'proof_branching2.in'), 'utf8')
      .split(/\n\s*\n/)
      .filter((s) => s.trim())
      .map((s) => JSON.parse(s) as { cmd?: string; tactic?: string });
    const content = requests[0]!.cmd!;
    const recordedPath = requests.slice(1).map((r) => r.tactic!);
    const { app, url } = await searchDaemon({ TRANSCRIPTS: transcripts(tag, ['proof_branching2']) });
    t.teardown(() => app.close());
    await using search = await ProofSearch.connect({ url, environment: TEST_ENV });
    // The candidates in another order than the proof needs them.
    const found = await bestFirst(search, content, [...recordedPath].reverse(), { maxExpansions: 20 });
    t.same(found?.proof, recordedPath, `${tag}: the recorded proof, found by search`);
    t.ok(found && found.expanded >= recordedPath.length, 'one expansion per step at least');
    t.equal((await search.stat()).connection.states > 0, true, 'states of the search are held until dispose');
  }
});
