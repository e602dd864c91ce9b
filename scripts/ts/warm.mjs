// Fills the compile cache (compile.mjs) for every TypeScript file of the project in one esbuild
// pass, so the test processes that follow only read it. Prints nothing when all is current.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { CACHE_DIR, cacheFile, readCached, transformOptions, writeCached } from './compile.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIRS = ['src', 'test', 'bench', 'lean', 'examples'];
const SKIP = new Set(['node_modules', '.build', 'envs', 'results', 'fixtures']);

function tsFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : tsFiles(p);
    return /\.[cm]?ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

export async function warmCache() {
  const files = DIRS.flatMap((d) => tsFiles(path.join(ROOT, d)));
  let compiled = 0;
  const current = new Set();
  await Promise.all(
    files.map(async (file) => {
      const source = readFileSync(file, 'utf8');
      const entry = cacheFile(file, source);
      current.add(entry);
      if (readCached(entry) !== undefined) return;
      // A file esbuild cannot parse is left to fail in the process that imports it, with its error.
      const out = await transform(source, transformOptions(file)).catch(() => undefined);
      if (out === undefined) return;
      writeCached(entry, out.code);
      compiled += 1;
    }),
  );
  return { files: files.length, compiled, pruned: prune(current) };
}

/** Entries of no current file (earlier versions) are deleted, so the cache does not grow with every edit. */
function prune(current) {
  let pruned = 0;
  for (const sub of safeList(CACHE_DIR))
    for (const name of safeList(path.join(CACHE_DIR, sub))) {
      const entry = path.join(CACHE_DIR, sub, name);
      if (current.has(entry)) continue;
      rmSync(entry, { force: true });
      pruned++;
    }
  return pruned;
}

function safeList(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const r = await warmCache();
  process.stderr.write(
    `compile cache: ${r.compiled} of ${r.files} files compiled, ${r.pruned} old entries removed, in ${Math.round(performance.now() - t0)} ms\n`,
  );
}
