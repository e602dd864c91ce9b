/**
 * `node --import tsx bench/report.ts`: writes docs/benchmarks.md from the recorded runs in
 * bench/results/*.json (`npm run bench -- --record …` writes there and calls this). Every
 * figure is quoted with its run's date, commit and machine load. A target's verdict is the
 * median of the last QUIET_RUNS quiet recorded runs of its scenario at the newest commit
 * that scenario was recorded at (`judge`): a run is quiet when its load was recorded and
 * other processes used at most NOISY_SHARE of the CPU while it ran; with fewer such runs the
 * target reads "insufficient quiet runs", never PASS; one that could not be measured reads SKIP.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScenarioResult, TargetResult } from './lib.ts';
import { NOISY_SHARE } from './proc.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const RECORDED_DIR = path.join(BENCH_DIR, 'results');
export const DOC = path.join(BENCH_DIR, '..', 'docs', 'benchmarks.md');

/** The conditions of one scenario's run (bench/run.ts measures them around the scenario's process). */
export interface Conditions {
  /** 1-minute load average before and after. */
  loadBefore: number;
  loadAfter: number;
  /** Share of the machine's CPU used by other processes meanwhile. */
  outside: number;
  loaded: boolean;
}

export interface RunMeta {
  date: string;
  commit: string;
}

export interface RecordedRun {
  file: string;
  machine: { node: string; cpu: string; cores: number };
  run?: RunMeta;
  results: (ScenarioResult & { conditions?: Conditions })[];
}

export function readRuns(dir = RECORDED_DIR): RecordedRun[] {
  return (
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => ({ file: f, ...(JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Omit<RecordedRun, 'file'>) }))
      // Other benches write their own shapes here too (bench/search/steps.ts): only `npm run bench` runs count.
      .filter((r) => Array.isArray(r.results))
  );
}

/** PASS / FAIL only on a quiet run whose load was recorded; SKIP for what was not measured. */
export function verdict(t: TargetResult, c: Conditions | undefined): string {
  if (t.skipped) return 'SKIP';
  if (!c) return 'not judged (load not recorded)';
  if (c.loaded || t.noisy) return 'not judged (loaded machine)';
  return t.pass ? 'PASS' : 'FAIL';
}

const when = (r: RecordedRun) => r.run?.date ?? `${r.file.slice(0, 10)} (from the file name)`;
/** The run's commit; for a run that did not record it, the commit that added its results file. */
const commit = (r: RecordedRun) => r.run?.commit ?? addedIn(r.file);

function addedIn(file: string): string {
  try {
    const h = execFileSync('git', ['log', '--diff-filter=A', '--format=%h', '--', path.join(RECORDED_DIR, file)], {
      encoding: 'utf8',
    }).trim();
    return h ? `not recorded (file added in ${h.split('\n').at(-1)})` : 'not recorded';
  } catch {
    return 'not recorded';
  }
}
const load = (c: Conditions | undefined) =>
  c
    ? `load ${c.loadBefore.toFixed(1)}→${c.loadAfter.toFixed(1)}, others ${Math.round(c.outside * 100)}% of CPU${c.loaded ? ' (LOADED)' : ''}`
    : 'load not recorded';

/** The newest recorded result of each scenario, with the run it came from. */
export function latestByScenario(
  runs: RecordedRun[],
): Map<string, { run: RecordedRun; result: RecordedRun['results'][0] }> {
  const out = new Map<string, { run: RecordedRun; result: RecordedRun['results'][0] }>();
  for (const run of runs) for (const result of run.results) out.set(result.name, { run, result });
  return out;
}

/** Quiet runs a verdict takes the median of. */
export const QUIET_RUNS = 3;

/** Counts toward a verdict: its load was recorded and other processes stayed within NOISY_SHARE of the CPU. */
export const isQuiet = (t: TargetResult, c: Conditions | undefined): boolean =>
  !!c && !c.loaded && !t.noisy && !t.skipped;

/** The first number of a figure ("1.04× (31 vs 28 µs)" → 1.04), to order runs by; NaN when there is none. */
const valueOf = (figure: string) => Number(/-?\d+(?:\.\d+)?/.exec(figure)?.[0] ?? NaN);
/** The first word of a figure that holds a number ("worst 1181 ms, …" → "1181"), to list the runs by. */
const leading = (figure: string) => figure.split(/[\s,;]+/).find((w) => /\d/.test(w)) ?? figure;

export interface Judged {
  target: string;
  scenario: string;
  /** The newest commit the scenario was recorded at. */
  commit: string;
  /** PASS / FAIL (the median of the quiet runs), SKIP, or why there is no verdict. */
  verdict: string;
  figure: string;
  /** The runs the verdict rests on (the newest one when there is no verdict), newest first. */
  from: { run: RecordedRun; result: RecordedRun['results'][0] }[];
}

/** One target of a scenario judged over the quiet runs at its newest commit (see the file's comment). */
function judgeTarget(name: string, target: string, runs: RecordedRun[]): Judged {
  const all = runs.flatMap((run) => run.results.filter((r) => r.name === name).map((result) => ({ run, result })));
  const newest = all.at(-1)!;
  const at = commit(newest.run);
  const t = (r: RecordedRun['results'][0]) => r.targets?.find((x) => x.target === target);
  const base = { target, scenario: name, commit: at };
  if (t(newest.result)?.skipped) return { ...base, verdict: 'SKIP', figure: t(newest.result)!.figure, from: [newest] };
  // A run of a modified work tree (`+dirty`) or without its commit recorded is pooled with none.
  const poolable = !!newest.run.run && !at.endsWith('+dirty');
  const quiet = poolable
    ? all
        .filter((e) => e.run.run?.commit === at && t(e.result) && isQuiet(t(e.result)!, e.result.conditions))
        .slice(-QUIET_RUNS)
        .reverse()
    : [];
  if (quiet.length < QUIET_RUNS)
    return {
      ...base,
      verdict: `insufficient quiet runs (${quiet.length} of ${QUIET_RUNS} ${poolable ? `at ${at}` : 'at a clean recorded commit'})`,
      figure: `${t(newest.result)?.figure ?? 'not measured'} (newest run)`,
      from: [newest],
    };
  const passes = quiet.filter((e) => t(e.result)!.pass).length;
  const byValue = [...quiet].sort((a, b) => valueOf(t(a.result)!.figure) - valueOf(t(b.result)!.figure));
  const median = byValue[QUIET_RUNS >> 1]!;
  return {
    ...base,
    // The median of the runs' verdicts: PASS when most of them passed.
    verdict: passes * 2 > quiet.length ? 'PASS' : 'FAIL',
    figure: `${t(median.result)!.figure} (median of ${quiet.map((e) => leading(t(e.result)!.figure)).join(', ')})`,
    from: quiet,
  };
}

/** Every target of each scenario's newest recorded result, judged (`judgeTarget`). */
export function judge(runs: RecordedRun[]): Judged[] {
  return [...latestByScenario(runs)].flatMap(([name, { result }]) =>
    (result.targets ?? []).map((t) => judgeTarget(name, t.target, runs)),
  );
}

export function renderReport(runs: RecordedRun[]): string {
  const latest = latestByScenario(runs);
  const lines = [
    '# Benchmarks',
    '',
    '<!-- Generated by bench/report.ts from bench/results/*.json; do not edit by hand. -->',
    '',
    'How the figures are taken and what each scenario measures: [docs/benchmarking.md](benchmarking.md). Run',
    '`npm run bench [-- scenario…]` (results go to the git-ignored `bench/results/local/`); add',
    '`--record` to keep them in `bench/results/` and regenerate this page. Each scenario runs in',
    `its own process; its run is **loaded** when other processes used more than ${NOISY_SHARE * 100}% of the`,
    "machine's CPU meanwhile, and a loaded run is never quoted as a pass. Ratios compare a",
    'candidate with a baseline measured in the same run, interleaved.',
    '',
    `## Targets (median of the last ${QUIET_RUNS} quiet runs at the newest commit)`,
    '',
    `A verdict is the median of the last ${QUIET_RUNS} **quiet** recorded runs of the scenario at the newest commit`,
    `it was recorded at (quiet: load recorded, other processes used at most ${NOISY_SHARE * 100}% of the CPU meanwhile;`,
    'a run from a modified work tree is pooled with none). With fewer, the target reads "insufficient quiet',
    'runs" and the newest figure is shown for information only.',
    '',
    '| target | figure | result | scenario | runs | commit | conditions |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const j of judge(runs))
    lines.push(
      `| ${j.target} | ${j.figure} | ${j.verdict} | ${j.scenario} | ${j.from.map((e) => when(e.run)).join(', ')} | ${j.commit} | ${j.from.map((e) => load(e.result.conditions)).join('; ')} |`,
    );
  lines.push('');
  for (const [name, { run, result }] of latest) {
    lines.push(
      `## ${name}`,
      '',
      `${when(run)}, commit ${commit(run)}, ${load(result.conditions)}; Node ${run.machine.node}, ${run.machine.cpu}, ${run.machine.cores} cores (\`bench/results/${run.file.replace(/\.json$/, '.md')}\`).`,
      '',
      result.summary,
      '',
      '| metric | value | note |',
      '|---|---|---|',
      ...result.table.map((row) => `| ${row.join(' | ')} |`),
      '',
    );
  }
  return lines.join('\n');
}

export function writeReport(): string {
  writeFileSync(DOC, renderReport(readRuns()));
  return DOC;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stderr.write(`wrote ${writeReport()}\n`);
