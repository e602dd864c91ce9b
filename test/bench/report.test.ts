/**
 * docs/benchmarks.md is what bench/report.ts makes of the recorded runs in bench/results/: a
 * figure there always has a results file, a date, a commit and its machine load behind it.
 * After recording a run (`npm run bench -- --record …`) or adding a results file by hand, run
 * `node --import tsx bench/report.ts`.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { DOC, judge, readRuns, renderReport, type RecordedRun } from '../../bench/report.ts';

t.test('docs/benchmarks.md is generated from the recorded runs', async (t) => {
  const runs = readRuns();
  t.ok(runs.length > 0, `${runs.length} recorded runs`);
  t.equal(readFileSync(DOC, 'utf8'), renderReport(runs), 'regenerate with `node --import tsx bench/report.ts`');
});

/** A recorded run of one scenario with one target (`pass`, its figure), quiet unless `loaded`. */
function run(i: number, commit: string, pass: boolean, figure: string, loaded = false): RecordedRun {
  return {
    file: `2026-01-0${i}.json`,
    machine: { node: 'v20', cpu: 'test', cores: 2 },
    run: { date: `2026-01-0${i}T00:00:00.000Z`, commit },
    results: [
      {
        name: 's',
        summary: '',
        figures: {},
        table: [],
        targets: [{ target: 'x ≤ 2', figure, pass, noisy: false }],
        conditions: { loadBefore: 1, loadAfter: 1, outside: loaded ? 0.5 : 0, loaded },
      },
    ],
  };
}

t.test('a verdict is the median of the last three quiet runs at the newest commit', async (t) => {
  // The newest run alone (the rule before) would say FAIL; two of the last three quiet runs pass.
  const runs = [run(1, 'aaa', false, '9 ms'), run(2, 'bbb', true, '1.5 ms'), run(3, 'bbb', true, '1 ms')];
  runs.push(run(4, 'bbb', false, '5 ms', true), run(5, 'bbb', false, '3 ms'));
  const [j] = judge(runs);
  t.equal(j!.verdict, 'PASS');
  t.equal(j!.figure, '1.5 ms (median of 3, 1, 1.5)', 'the median run’s figure, the three listed newest first');
  t.same(
    j!.from.map((e) => e.run.file),
    ['2026-01-05.json', '2026-01-03.json', '2026-01-02.json'],
    'the loaded run and the other commit’s are left out',
  );
  runs.push(run(6, 'bbb', false, '4 ms'));
  t.equal(judge(runs)[0]!.verdict, 'FAIL', 'two of the last three quiet runs fail');
});

t.test('fewer than three quiet runs at the newest commit: no verdict', async (t) => {
  const runs = [run(1, 'aaa', true, '1 ms'), run(2, 'aaa', true, '1 ms'), run(3, 'aaa', true, '1 ms')];
  runs.push(run(4, 'bbb', true, '1 ms'), run(5, 'bbb', true, '1 ms', true));
  t.equal(judge(runs)[0]!.verdict, 'insufficient quiet runs (1 of 3 at bbb)', 'older commits do not count');
  t.equal(judge(runs)[0]!.figure, '1 ms (newest run)');
  const dirty = [
    run(1, 'ccc+dirty', true, '1 ms'),
    run(2, 'ccc+dirty', true, '1 ms'),
    run(3, 'ccc+dirty', true, '1 ms'),
  ];
  t.match(judge(dirty)[0]!.verdict, /^insufficient quiet runs \(0 of 3/, 'runs of a modified work tree are not pooled');
});
