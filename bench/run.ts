/**
 * `npm run bench [-- scenario…]`: runs the named scenarios (default: all), prints a
 * Markdown table, and writes bench/results/<timestamp>.json and .md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, type ScenarioResult } from './lib.ts';
import { adversarialScenario } from './scenarios/adversarial.ts';
import { cacheMemoryScenario } from './scenarios/cache-memory.ts';
import { clusterScenario } from './scenarios/cluster.ts';
import { clusterHeadersPhase } from './scenarios/cluster-headers.ts';
import { hitPathScenario } from './scenarios/hit-path.ts';
import { missLatencyScenario } from './scenarios/miss-latency.ts';
import { orchestrationScenario } from './scenarios/orchestration.ts';
import { eventLoopLagScenario } from './scenarios/event-loop-lag.ts';
import { longRunScenario } from './scenarios/long-run.ts';
import { overloadScenario } from './scenarios/overload.ts';
import { parserScenario } from './scenarios/parser.ts';
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
  sandbox: () => sandboxScenario(),
  adversarial: () => adversarialScenario(),
  'event-loop-lag': () => eventLoopLagScenario(),
  'long-run': () => longRunScenario(),
  cluster: () => clusterScenario(),
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

const results: ScenarioResult[] = [];
for (const n of names) {
  console.error(`running ${n}…`);
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
  const r = JSON.parse(String(child.stdout).trim().split('\n').at(-1)!) as ScenarioResult;
  console.error(`  ${r.summary}`);
  results.push(r);
}
const m = machine();
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const md = [
  `# Benchmark ${stamp}`,
  '',
  `Node ${m.node}, ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.platform}`,
  '',
  ...targetTable(results),
  ...results.flatMap((r) => [
    `## ${r.name}`,
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
function targetTable(rs: ScenarioResult[]): string[] {
  const ts = rs.flatMap((r) => (r.targets ?? []).map((t) => ({ ...t, scenario: r.name })));
  if (!ts.length) return [];
  return [
    '## Targets',
    '',
    '| target | figure | result | scenario |',
    '|---|---|---|---|',
    ...ts.map(
      (t) =>
        `| ${t.target} | ${t.figure} | ${t.pass ? 'PASS' : 'FAIL'}${t.noisy ? ' (noisy run)' : ''} | ${t.scenario} |`,
    ),
    '',
  ];
}
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `${stamp}.json`), JSON.stringify({ machine: m, results }, null, 2));
writeFileSync(path.join(dir, `${stamp}.md`), md + '\n');
console.log(md);
