/**
 * Runs several test files in one process, one after another (scripts/test.mjs writes the entry
 * files that call this). Every test process pays ~0.7 s of CPU before its first test (Node, tap
 * and its loaders) and ~0.8 s more to import the daemon; on 2 cores that overhead was a third
 * of `npm test`'s CPU. A file here runs as it does alone: its top-level `t.test` calls are the
 * root's subtests, and the next file is imported only when all of them have ended, so no file's
 * top-level code runs while another file's tests do.
 *
 * While a file is current the root's methods are wrapped: `test` collects the promise of each
 * subtest's end (what the group waits for); `teardown` (helpers that own a resource for the
 * whole file: test/recorded/recorded-launch.ts) is run when the file's tests have ended, as
 * the file's own process would have at its exit — on the root it would also make tap end the
 * root the first time it is idle, between two files; any other root call (`before`, `plan`,
 * `end`) cannot be scoped to one file and fails the file, naming OWN_PROCESS in
 * scripts/test.mjs, where such a file belongs. test/test-files.test.ts checks the test files
 * themselves call nothing on the root but `t.test` and `t.comment`.
 */
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';

type Root = typeof t;
type Teardown = () => unknown;
const SCOPED_ELSEWHERE = ['before', 'plan', 'end'] as const;

interface FileRun {
  ended: Promise<unknown>[];
  teardowns: Teardown[];
  refused: string[];
}

/** Replaces the root's methods while `file` is current; returns the function that restores them. */
function scopeRootTo(run: FileRun): () => void {
  const root = t as unknown as Record<string, unknown>;
  const saved = new Map<string, unknown>();
  const wrap = (name: string, fn: (...args: never[]) => unknown) => {
    saved.set(name, root[name]);
    root[name] = fn;
  };
  const test = t.test;
  wrap('test', (...args: Parameters<Root['test']>) => {
    const ended = test.apply(t, args);
    run.ended.push(ended);
    return ended;
  });
  wrap('teardown', (fn: Teardown) => void run.teardowns.push(fn));
  for (const name of SCOPED_ELSEWHERE) wrap(name, () => void run.refused.push(name));
  return () => {
    for (const [name, fn] of saved) root[name] = fn;
  };
}

async function runFile(file: string): Promise<void> {
  const name = relative(process.cwd(), file);
  t.comment(`file: ${name}`);
  const run: FileRun = { ended: [], teardowns: [], refused: [] };
  const restore = scopeRootTo(run);
  try {
    await import(pathToFileURL(file).href);
    await Promise.all(run.ended);
  } catch (error) {
    t.fail(`${name} could not be loaded`, { error });
  } finally {
    restore();
  }
  for (const fn of run.teardowns) await fn();
  if (run.refused.length > 0)
    t.fail(`${name} calls t.${run.refused.join(', t.')} on the root: run it alone (OWN_PROCESS in scripts/test.mjs)`);
}

/** Runs `files` (absolute paths) in order; a file that fails to load is a failed test, not the end of the group. */
export async function runGroup(files: readonly string[]): Promise<void> {
  for (const file of files) await runFile(file);
}
