/**
 * `npm run bench [-- scenario…] [-- --record]`: runs the named scenarios (default: all), prints
 * a Markdown table, and writes <timestamp>.json and .md to bench/results/local/ (git-ignored),
 * or with --record to bench/results/ and regenerates docs/benchmarks.md (bench/report.ts).
 * Each scenario's run records the date, the commit and the machine's load around it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { execa } from 'execa';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, type ScenarioResult } from './lib.ts';
import { cpuMeter } from './proc.ts';
import { RECORDED_DIR, verdict, writeReport, type Conditions, type RunMeta } from './report.ts';
import { adversarialScenario } from './scenarios/adversarial.ts';
import { cacheMemoryScenario } from './scenarios/cache-memory.ts';
import { clusterScenario } from './scenarios/cluster.ts';
import { clusterHeadersPhase } from './scenarios/cluster-headers.ts';
import { clusterQueuePhase } from './scenarios/cluster-queue.ts';
import { natsServerPath, NO_NATS_REASON } from '../test/cluster/nats-server.ts';
import { headerRotationScenario } from './scenarios/header-rotation.ts';
import { hitPathScenario } from './scenarios/hit-path.ts';
import { missLatencyScenario } from './scenarios/miss-latency.ts';
import { orchestrationScenario } from './scenarios/orchestration.ts';
import { eventLoopLagScenario } from './scenarios/event-loop-lag.ts';
import { longRunScenario } from './scenarios/long-run.ts';
import { overloadScenario } from './scenarios/overload.ts';
import { parserScenario } from './scenarios/parser.ts';
import { rlWorkloadScenario } from './scenarios/rl-workload.ts';
import { sandboxScenario } from './scenarios/sandbox.ts';
import { startupScenario } from './scenarios/startup.ts';
import { structuralScenario } from './scenarios/structural.ts';

const SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
  parser: () => parserScenario(),
  structural: () => structuralScenario(),
  'hit-path': () => hitPathScenario(),
  'miss-latency': () => missLatencyScenario(),
  orchestration: () => orchestrationScenario(),
  'cache-memory': () => cacheMemoryScenario(),
  startup: () => startupScenario(),
  overload: () => overloadScenario(),
  'header-rotation': () => headerRotationScenario(),
  sandbox: () => sandboxScenario(),
  adversarial: () => adversarialScenario(),
  'event-loop-lag': () => eventLoopLagScenario(),
  'long-run': () => longRunScenario(),
  cluster: () => clusterScenario(),
  'rl-workload': () => rlWorkloadScenario(),
  // The queue-only phase of `cluster` alone (also part of it).
  'cluster-queue': async () => {
    const bin = natsServerPath();
    if (!bin)
      return {
        name: 'cluster-queue',
        summary: `skipped: ${NO_NATS_REASON}`,
        figures: { skipped: NO_NATS_REASON },
        table: [],
      };
    const q = await clusterQueuePhase(bin);
    return {
      name: 'cluster-queue',
      summary: q.figures
        .map((x) => `${x.workers}w ${Math.round(x.efficiency * 1000) / 10}% of ideal (${x.overheadMs} ms/job)`)
        .join('; '),
      figures: { queue: q.figures },
      table: q.rows,
      targets: q.targets,
    };
  },
  // The header phase of `cluster` alone (also part of it).
  'cluster-headers': async () => {
    const h = await clusterHeadersPhase();
    if (typeof h === 'string') return { name: 'cluster-headers', summary: h, figures: { skipped: h }, table: [] };
    return {
      name: 'cluster-headers',
      summary: h
        .map((x) => `${x.workers}w/${x.headers}h ${x.reqPerS} req/s api ${x.apiCallsPerSIdle}/s idle`)
        .join('; '),
      figures: { headers: h },
      table: h.map((x) => [
        `${x.workers} worker(s), ${x.headers} headers`,
        `${x.reqPerS} req/s; front adds p50 ${x.addedLatencyP50Ms} ms`,
        `JetStream API calls/s: ${x.apiCallsPerSLoaded} loaded, ${x.apiCallsPerSIdle} idle`,
      ]),
    };
  },
};

const args = process.argv.slice(2);
// `--child NAME`: run one scenario and print its result as JSON (the parent runs each in a fresh process,
// so one scenario's heap and GC cannot skew the next one's figures).
if (args[0] === '--child') {
  const r = await SCENARIOS[args[1]!]!();
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}
const wanted = args.filter((a) => !a.startsWith('-'));
const names = wanted.length ? wanted : Object.keys(SCENARIOS);
for (const n of names)
  if (!SCENARIOS[n]) {
    console.error(`unknown scenario ${n}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }

const record = args.includes('--record');
const results: (ScenarioResult & { conditions: Conditions })[] = [];
for (const n of names) {
  console.error(`running ${n}…`);
  const loadBefore = os.loadavg()[0]!;
  const meter = cpuMeter();
  const child = await execa(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', n], {
    stderr: 'inherit',
    reject: false,
    maxBuffer: 1 << 28,
  });
  if (child.exitCode !== 0) {
    console.error(`  ${n} failed (exit ${String(child.exitCode)})`);
    process.exitCode = 1;
    continue;
  }
  const share = meter.stop();
  const r = JSON.parse(String(child.stdout).trim().split('\n').at(-1)!) as ScenarioResult;
  const conditions: Conditions = {
    loadBefore,
    loadAfter: os.loadavg()[0]!,
    outside: share.outside,
    loaded: share.noisy,
  };
  console.error(`  ${r.summary}`);
  console.error(`  others used ${Math.round(share.outside * 100)}% of the machine${share.noisy ? ' (LOADED)' : ''}`);
  results.push({ ...r, conditions });
}
const m = machine();
const run: RunMeta = { date: new Date().toISOString(), commit: gitCommit() };
const stamp = run.date.replace(/[:.]/g, '-');
const md = [
  `# Benchmark ${stamp}`,
  '',
  `Node ${m.node}, ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.platform}; commit ${run.commit}`,
  '',
  ...targetTable(results),
  ...results.flatMap((r) => [
    `## ${r.name}`,
    '',
    `Load ${r.conditions.loadBefore.toFixed(1)}→${r.conditions.loadAfter.toFixed(1)}; other processes used ${Math.round(r.conditions.outside * 100)}% of the machine${r.conditions.loaded ? ' (LOADED: no PASS is judged)' : ''}.`,
    '',
    r.summary,
    '',
    '| metric | value | note |',
    '|---|---|---|',
    ...r.table.map((row) => `| ${row.join(' | ')} |`),
    '',
    ...(r.rounds && r.roundsHeader
      ? [
          'Rounds:',
          '',
          `| ${r.roundsHeader.join(' | ')} |`,
          `|${r.roundsHeader.map(() => '---').join('|')}|`,
          ...r.rounds.map((row) => `| ${row.join(' | ')} |`),
          '',
        ]
      : []),
  ]),
].join('\n');

/** PASS/FAIL of every target measured in this run, first. */
function targetTable(rs: (ScenarioResult & { conditions: Conditions })[]): string[] {
  const ts = rs.flatMap((r) => (r.targets ?? []).map((t) => ({ ...t, scenario: r.name, conditions: r.conditions })));
  if (!ts.length) return [];
  return [
    '## Targets',
    '',
    '| target | figure | result | scenario |',
    '|---|---|---|---|',
    ...ts.map((t) => `| ${t.target} | ${t.figure} | ${verdict(t, t.conditions)} | ${t.scenario} |`),
    '',
  ];
}
const dir = record ? RECORDED_DIR : path.join(RECORDED_DIR, 'local');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `${stamp}.json`), JSON.stringify({ machine: m, run, results }, null, 2));
writeFileSync(path.join(dir, `${stamp}.md`), md + '\n');
console.log(md);
console.error(`results in ${path.relative(process.cwd(), dir)}/${stamp}.{json,md}`);
if (record) console.error(`regenerated ${writeReport()}`);

/** The checked-out commit, `+dirty` when the work tree has changes. */
function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown (no git)';
  }
}
