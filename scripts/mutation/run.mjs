// `npm run mutate`: StrykerJS over the verdict code (scope.mjs), then a recorded result in
// bench/results/mutation-<date>.json (per file: killed, survived, timeout, no coverage; the score;
// the commit and the machine's load) and docs/mutation.md generated from the newest result.
// `npm run mutate -- --report` only regenerates the page from the newest recorded result.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EQUIVALENT } from './equivalent.mjs';
import { renderPage } from './page.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const REPORT = path.join(ROOT, '.cache', 'mutation', 'mutation.json');

/** Runs Stryker; the tests find ../shared by an absolute path, since they run from Stryker's sandbox copy. */
function runStryker(extra) {
  const shared = process.env.LEAN_TOOL_SHARED ?? path.resolve(ROOT, '..', 'shared');
  const env = { ...process.env, ...(existsSync(shared) ? { LEAN_TOOL_SHARED: shared } : {}) };
  const cli = path.join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
  const r = spawnSync(process.execPath, [cli, 'run', 'scripts/mutation/stryker.config.mjs', ...extra], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`stryker exited with ${r.status}`);
}

/** A survivor's key in EQUIVALENT: `file|mutator|original line (trimmed)|replacement`. */
const keyOf = (s) => `${s.file}|${s.mutator}|${s.original}|${s.replacement ?? ''}`;

const COUNTED = ['Killed', 'Survived', 'Timeout', 'NoCoverage', 'RuntimeError', 'CompileError', 'Ignored'];

/** Per file counts and the survivors (with the reason when argued equivalent) of Stryker's JSON report. */
function summarise(report) {
  const files = {};
  const survivors = [];
  for (const [file, f] of Object.entries(report.files)) {
    const c = Object.fromEntries(COUNTED.map((k) => [k, 0]));
    for (const m of f.mutants) {
      c[m.status] = (c[m.status] ?? 0) + 1;
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const line = m.location.start.line;
      const original = f.source.split('\n')[line - 1]?.trim() ?? '';
      survivors.push({
        file,
        line,
        status: m.status,
        mutator: m.mutatorName,
        replacement: m.replacement,
        original,
        equivalent: EQUIVALENT[keyOf({ file, mutator: m.mutatorName, original, replacement: m.replacement })],
      });
    }
    files[file] = { ...c, score: score(c) };
  }
  const total = Object.fromEntries(COUNTED.map((k) => [k, Object.values(files).reduce((s, c) => s + c[k], 0)]));
  return { files, total: { ...total, score: score(total) }, survivors };
}

/** Stryker's score: detected (killed, timed out) over valid mutants (detected, survived, not covered). */
function score(c) {
  const detected = c.Killed + c.Timeout;
  const valid = detected + c.Survived + c.NoCoverage;
  return valid === 0 ? null : Math.round((1000 * detected) / valid) / 10;
}

/** The commit the run mutates, and whether src/ differed from it: read when Stryker copies the sources, at the start. */
function sourceState() {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT }).toString().trim() !== '';
  return { commit, dirty };
}

function record(summary, startedAt, load, { commit, dirty }) {
  const result = {
    kind: 'mutation',
    date: startedAt.toISOString(),
    commit,
    srcDirty: dirty,
    node: process.version,
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    load: { start: load, end: os.loadavg().map((x) => Math.round(x * 10) / 10) },
    minutes: Math.round((Date.now() - startedAt.getTime()) / 6000) / 10,
    ...summary,
  };
  mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `mutation-${result.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

function newestResult() {
  const names = readdirSync(RESULTS)
    .filter((n) => /^mutation-.*\.json$/.test(n))
    .sort();
  if (!names.length) throw new Error('no bench/results/mutation-*.json yet: run `npm run mutate`');
  return { name: names.at(-1), result: JSON.parse(readFileSync(path.join(RESULTS, names.at(-1)), 'utf8')) };
}

const args = process.argv.slice(2);
if (!args.includes('--report')) {
  const startedAt = new Date();
  const load = os.loadavg().map((x) => Math.round(x * 10) / 10);
  const source = sourceState();
  runStryker(args);
  const summary = summarise(JSON.parse(readFileSync(REPORT, 'utf8')));
  console.log(`recorded: ${path.relative(ROOT, record(summary, startedAt, load, source))}`);
}
const { name, result } = newestResult();
// The arguments as they are now (equivalent.mjs may have grown since the run): the page shows the current ones.
const survivors = result.survivors.map((s) => ({ ...s, equivalent: EQUIVALENT[keyOf(s)] }));
writeFileSync(path.join(ROOT, 'docs', 'mutation.md'), renderPage(name, { ...result, survivors }));
console.log(`docs/mutation.md from ${name}: score ${result.total.score} %`);
