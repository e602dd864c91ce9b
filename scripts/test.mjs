// `npm test`: runs every test/**/*.test.ts under tap, the light files grouped several to a
// process (test/helpers/run-group.ts says why), the files in OWN_PROCESS alone.
// `npm test -- test/server/http.test.ts` (files or folders) hands them to tap as they are, one
// process per file, as `npx tap <file>` does; other arguments (`npm test -- -j 2`) go to tap
// before the grouped list.
import { spawnSync } from 'node:child_process';
import { register } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GROUP_DIR = path.join(ROOT, '.cache', 'test-groups');
/**
 * About this many files share a process (dealt by their weight, dealGroups, so no group gathers the slow ones).
 * Each group process costs ~0.7 s of CPU to start and ~1 s more for the modules its files share (the daemon's:
 * fastify, zod, pino); 20 rather than 15 made 9 groups instead of 11, 25 rather than 20 8 instead of 10.
 */
const GROUP_SIZE = 25;

// Files that keep a process of their own: the longest (many seconds of their own tests, more than
// a group's share: in a group they would lengthen the longest job) and the ones that time the
// process itself (event-loop lag, CPU caps, worker threads). Every other file shares a group,
// among them the cluster files (their nats-server starts in a test of its own and stops in a
// root `t.teardown`, test/cluster/nats-for-tests.ts, which test/helpers/run-group.ts scopes to
// the file) and the ones that start children or a daemon (backend/sandbox, client/cli,
// lean/setup): a process of their own cost each ~1.2 s of CPU more. Paths relative to test/.
const OWN_PROCESS = new Set([
  'backend/warm-sessions.test.ts',
  'recorded/replay.test.ts',
  'server/structural-workers.test.ts',
  'syntax/corpus.test.ts',
  'syntax/hostile-input.test.ts',
  'syntax/linear-scans.test.ts',
  'tools/corpus.test.ts',
  'tools/extract-structure.test.ts',
  'workers/fair-scheduler.test.ts',
  'workers/lean-port.test.ts',
]);

// The files whose length is their shared data set's (test/shared-data.ts finds it, as the tests do). Without it
// (a fresh clone) they skip in a moment: they then count SMALL and join the groups, where a process of their own
// cost more than their tests (0.7-1.6 s of CPU each).
const DATA_ONLY = new Map([
  ['syntax/corpus.test.ts', 'corpus'],
  ['tools/corpus.test.ts', 'corpus'],
  ['tools/extract-structure.test.ts', 'corpus'],
  ['recorded/replay.test.ts', 'recorded'],
  ['recorded/tools.test.ts', 'recorded'],
  ['tools/comparator-recorded.test.ts', 'recorded'],
  ['search/cluster.test.ts', 'recorded'],
  ['search/stream.test.ts', 'recorded'],
]);

/** The data sets of DATA_ONLY that are there. */
async function dataHere() {
  register('./ts/hooks.mjs', import.meta.url);
  const { sharedPath } = await import('../test/shared-data.ts');
  return new Set([...DATA_ONLY.values()].filter((sub) => sharedPath(sub) !== undefined));
}

/** Every `*.test.ts` under `dir`, relative to test/, sorted (tap's own order). */
function testFiles(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const rel = prefix + e.name;
      if (e.isDirectory())
        return ['fixtures', 'node_modules'].includes(e.name) ? [] : testFiles(path.join(dir, e.name), rel + '/');
      return e.name.endsWith('.test.ts') ? [rel] : [];
    })
    .sort();
}

// The files that load the TypeScript compiler (9 MB of JavaScript: ~1.5 s of CPU to load in a process) share
// the first group, which loads it once, instead of each loading it in a group of its own.
const loadsCompiler = (f) => /from 'typescript'/.test(readFileSync(path.join(ROOT, 'test', f), 'utf8'));

/**
 * Seconds of wall time of the files that take 2.5 s or more, the weights that order and balance the processes
 * (bench/results/test-suite-2026-11-27T16-00Z.json: a whole-suite run of a fresh clone at load 5-9, and the data
 * sets' files from a run with ../shared); every other file counts SMALL (their mean). Only their ratios matter.
 */
const SLOW = new Map(
  Object.entries({
    // Alone (OWN_PROCESS).
    'tools/corpus.test.ts': 35,
    'recorded/replay.test.ts': 31,
    'tools/extract-structure.test.ts': 30,
    'backend/warm-sessions.test.ts': 27,
    'syntax/corpus.test.ts': 20,
    'workers/lean-port.test.ts': 19,
    'server/structural-workers.test.ts': 14,
    'syntax/hostile-input.test.ts': 13,
    'syntax/linear-scans.test.ts': 12,
    'workers/fair-scheduler.test.ts': 12,
    // Grouped.
    'search/cluster.test.ts': 19,
    'cluster/cluster.test.ts': 18,
    'cluster/outage.test.ts': 15,
    'search/stream.test.ts': 15,
    'lean/setup.test.ts': 12,
    'recorded/tools.test.ts': 12,
    'server/build.test.ts': 11,
    'client/cli.test.ts': 10,
    'client/client.test.ts': 10,
    'backend/sandbox.test.ts': 9,
    'fast-paths.test.ts': 9,
    'search/fair-share.test.ts': 9,
    'server/adapters/mcp.test.ts': 9,
    'cluster/readiness.test.ts': 8,
    'bench/cost-model.test.ts': 7,
    'cluster/operator.test.ts': 7,
    'cluster/scale.test.ts': 7,
    'server/hostile-clients.test.ts': 7,
    'admission/http-admission.test.ts': 6,
    'server/daemon.test.ts': 6,
    'config.test.ts': 5,
    'lean/doctor.test.ts': 5,
    'server/adapters/kimina.test.ts': 5,
    'server/request-line.test.ts': 5,
    'server/source-limits.test.ts': 5,
    'tools/comparator-recorded.test.ts': 5,
    'admission/open-mode.test.ts': 4,
    'backend/pool.test.ts': 4,
    'backend/process.test.ts': 4,
    'client/mcp-stdio.test.ts': 4,
    'cluster/affinity.test.ts': 4,
    'lean/catalogue.test.ts': 4,
    'server/deferred-body.test.ts': 4,
    'server/response-bound.test.ts': 4,
    'admission/limiter.test.ts': 3,
    'client/first-ten-minutes.test.ts': 3,
    'comment-hygiene.test.ts': 3,
    'examples.test.ts': 3,
    'lint-rules.test.ts': 3,
    'metrics/metrics.test.ts': 3,
    'server/bounded-errors.test.ts': 3,
    'server/hit-front.test.ts': 3,
    'server/lean-path.test.ts': 3,
    'tools/verify-proof-parses.test.ts': 3,
  }),
);
const SMALL = 0.4;

/** A file's weight when the data sets `here` are there. */
const weigher = (here) => (f) => (DATA_ONLY.has(f) && !here.has(DATA_ONLY.get(f)) ? SMALL : (SLOW.get(f) ?? SMALL));

const RUNNER = path.join(ROOT, 'test', 'helpers', 'run-group.ts');
const HEAD = '// Written by scripts/test.mjs';

/** A group's entry file: its test files, one after another, in one process (test/helpers/run-group.ts). */
const groupEntry = (files) =>
  `${HEAD}: these test files, one after another, in one process.\nimport { runGroup } from ${JSON.stringify(RUNNER)};\nawait runGroup(${JSON.stringify(
    files.map((f) => path.join(ROOT, 'test', f)),
    null,
    1,
  )});\n`;

/** An OWN_PROCESS file's entry file: the file, imported as tap would run it, in a process of its own. */
const aloneEntry = (f) =>
  `${HEAD}: ${f} in a process of its own.\nimport t from 'tap';\nt.comment(${JSON.stringify(`file: test/${f}`)});\nawait import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'test', f)).href)});\n`;

/**
 * Deals `files` into groups of about GROUP_SIZE: the compiler's files to the first, then each file, slowest
 * first, to the group with the least weight so far (ties: the fewest files), so the groups end at about the
 * same time. Each group's files run in test/'s order.
 */
function dealGroups(files, weight) {
  const groups = Array.from({ length: Math.max(1, Math.ceil(files.length / GROUP_SIZE)) }, () => ({ files: [], w: 0 }));
  const add = (g, f) => {
    g.files.push(f);
    g.w += weight(f);
  };
  const compiler = new Set(files.filter(loadsCompiler));
  for (const f of compiler) add(groups[0], f);
  const rest = files.filter((f) => !compiler.has(f)).sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
  for (const f of rest)
    add(
      groups.reduce((m, g) => (g.w < m.w || (g.w === m.w && g.files.length < m.files.length) ? g : m)),
      f,
    );
  return groups.map((g) => ({ files: files.filter((f) => g.files.includes(f)), w: g.w }));
}

/**
 * Writes an entry file for each group of `grouped` and for each file of `alone`; returns their paths, named so
 * that tap (which starts files in name order, `jobs` at a time) starts the longest first and the short ones
 * fill the end, instead of test/'s alphabetical order ending on the corpus suites.
 */
function writeEntries(grouped, alone, weight) {
  rmSync(GROUP_DIR, { recursive: true, force: true });
  mkdirSync(GROUP_DIR, { recursive: true });
  const entries = [
    ...dealGroups(grouped, weight).map((g) => ({ name: 'group', w: g.w, body: groupEntry(g.files) })),
    ...alone.map((f) => ({
      name: f.replace(/\.test\.ts$/, '').replaceAll('/', '.'),
      w: weight(f),
      body: aloneEntry(f),
    })),
  ].sort((a, b) => b.w - a.w);
  return entries.map((e, i) => {
    const file = path.join(GROUP_DIR, `${String(i + 1).padStart(2, '0')}-${e.name}.test.mjs`);
    writeFileSync(file, e.body);
    return path.relative(ROOT, file);
  });
}

/** Whether the arguments name files or folders to run (then tap gets them as they are). */
const namesFiles = (args) =>
  args.some(
    (a) =>
      !a.startsWith('-') &&
      // A quoted glob ('test/cluster/*.test.ts') names files too: tap expands it; without this the whole suite ran beside it.
      (/[*?[{]/.test(a) || (existsSync(path.resolve(a)) && /\.[cm]?[jt]s$|^[^.]*$/.test(a))),
  );

async function main(args) {
  const tap = path.join(ROOT, 'node_modules', '.bin', 'tap');
  let tapArgs = args;
  if (!namesFiles(args)) {
    const all = testFiles(path.join(ROOT, 'test'));
    const gone = [...OWN_PROCESS].filter((f) => !all.includes(f));
    if (gone.length) console.warn(`scripts/test.mjs: OWN_PROCESS names missing files: ${gone.join(', ')}`);
    const here = await dataHere();
    const alone = (f) => OWN_PROCESS.has(f) && (!DATA_ONLY.has(f) || here.has(DATA_ONLY.get(f)));
    tapArgs = [
      ...args,
      ...writeEntries(
        all.filter((f) => !alone(f)),
        all.filter(alone),
        weigher(here),
      ),
    ];
  }
  const run = spawnSync(tap, tapArgs, { stdio: 'inherit', cwd: ROOT });
  if (run.error) throw run.error;
  process.exit(run.status ?? 1);
}

await main(process.argv.slice(2));
