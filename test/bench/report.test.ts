/**
 * docs/benchmarks.md is what bench/report.ts makes of the recorded runs in bench/results/: a
 * figure there always has a results file, a date, a commit and its machine load behind it.
 * After recording a run (`npm run bench -- --record …`) or adding a results file by hand, run
 * `node --import tsx bench/report.ts`.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { DOC, readRuns, renderReport } from '../../bench/report.ts';

t.test('docs/benchmarks.md is generated from the recorded runs', async (t) => {
  const runs = readRuns();
  t.ok(runs.length > 0, `${runs.length} recorded runs`);
  t.equal(readFileSync(DOC, 'utf8'), renderReport(runs), 'regenerate with `node --import tsx bench/report.ts`');
});
