// `npm test`: runs every test/**/*.test.ts under tap, the light files grouped several to a
// process (test/helpers/run-group.ts says why), the files in OWN_PROCESS alone.
// `npm test -- test/server/http.test.ts` (files or folders) hands them to tap as they are, one
// process per file, as `npx tap <file>` does; other arguments (`npm test -- -j 2`) go to tap
// before the grouped list.
import { spawnSync } from 'node:child_process';
import { register } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GROUP_DIR = path.join(ROOT, '.cache', 'test-groups');
/**
 * About this many files share a process (the files are dealt round-robin, so each group mixes folders and no group
 * gathers all the slow ones). Each group process costs ~0.7 s of CPU to start and ~1 s more for the modules its
 * files share (the daemon's: fastify, zod, pino); 20 rather than 15 made 9 groups instead of 11.
 */
const GROUP_SIZE = 20;

// Files that keep a process of their own: the long ones (many seconds of their own tests: the
// start-up is a small share of them, and in a group they would lengthen the longest job), the
// ones that time the process itself (event-loop lag, CPU caps, worker threads) and the one that
// sets process-wide environment variables; and the files that use the root test's own
// lifecycle (the cluster files' nats-server: `t.before`, or `t.plan(0)` as a skip), which
// test/helpers/run-group.ts cannot scope to one file. Paths relative to test/.
const OWN_PROCESS = new Set([
  'backend/process.test.ts',
  'backend/sandbox.test.ts',
  'backend/warm-sessions.test.ts',
  'client/cli.test.ts',
  'cluster/affinity.test.ts',
  'cluster/answer-path.test.ts',
  'cluster/cluster.test.ts',
  'cluster/operator.test.ts',
  'cluster/outage.test.ts',
  'cluster/readiness.test.ts',
  'cluster/scale.test.ts',
  'cluster/stream.test.ts',
  'lean/setup.test.ts',
  'recorded/replay.test.ts',
  'search/cluster.test.ts',
  'search/stream.test.ts',
  'server/hostile-clients.test.ts',
  'server/response-bound.test.ts',
  'server/structural-workers.test.ts',
  'syntax/corpus.test.ts',
  'syntax/hostile-input.test.ts',
  'syntax/linear-scans.test.ts',
  'tools/corpus.test.ts',
  'tools/extract-structure.test.ts',
  'workers/fair-scheduler.test.ts',
  'workers/lean-port.test.ts',
]);

// Alone only when their shared data set is there (test/shared-data.ts finds it, as the tests do): over it they
// are among the longest files; without it (a fresh clone) they skip in a moment, and a process of their own cost
// more than their tests (0.7-1.6 s of CPU each).
const DATA_ONLY = new Map([
  ['syntax/corpus.test.ts', 'corpus'],
  ['tools/corpus.test.ts', 'corpus'],
  ['tools/extract-structure.test.ts', 'corpus'],
  ['recorded/replay.test.ts', 'recorded'],
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

/** Writes the grouped files' entry files (round-robin over the sorted list); returns their paths. */
function writeGroups(files) {
  rmSync(GROUP_DIR, { recursive: true, force: true });
  mkdirSync(GROUP_DIR, { recursive: true });
  const count = Math.max(1, Math.ceil(files.length / GROUP_SIZE));
  const runner = path.join(ROOT, 'test', 'helpers', 'run-group.ts');
  const compiler = files.filter(loadsCompiler);
  const rest = files.filter((f) => !compiler.includes(f));
  return Array.from({ length: count }, (_, g) => {
    const dealt = rest.filter((_, i) => (i + compiler.length) % count === g);
    const members = (g === 0 ? [...compiler, ...dealt].sort() : dealt).map((f) => path.join(ROOT, 'test', f));
    const name = path.join(GROUP_DIR, `group-${String(g + 1).padStart(2, '0')}.test.mjs`);
    const body = `// Written by scripts/test.mjs: these test files, one after another, in one process.\nimport { runGroup } from ${JSON.stringify(runner)};\nawait runGroup(${JSON.stringify(members, null, 1)});\n`;
    writeFileSync(name, body);
    return path.relative(ROOT, name);
  });
}

/** Whether the arguments name files or folders to run (then tap gets them as they are). */
const namesFiles = (args) =>
  args.some((a) => !a.startsWith('-') && existsSync(path.resolve(a)) && /\.[cm]?[jt]s$|^[^.]*$/.test(a));

async function main(args) {
  const tap = path.join(ROOT, 'node_modules', '.bin', 'tap');
  let tapArgs = args;
  if (!namesFiles(args)) {
    const all = testFiles(path.join(ROOT, 'test'));
    const gone = [...OWN_PROCESS].filter((f) => !all.includes(f));
    if (gone.length) console.warn(`scripts/test.mjs: OWN_PROCESS names missing files: ${gone.join(', ')}`);
    const here = await dataHere();
    const alone = (f) => OWN_PROCESS.has(f) && (!DATA_ONLY.has(f) || here.has(DATA_ONLY.get(f)));
    const own = all.filter(alone).map((f) => path.join('test', f));
    tapArgs = [...args, ...own, ...writeGroups(all.filter((f) => !alone(f)))];
  }
  const run = spawnSync(tap, tapArgs, { stdio: 'inherit', cwd: ROOT });
  if (run.error) throw run.error;
  process.exit(run.status ?? 1);
}

await main(process.argv.slice(2));
