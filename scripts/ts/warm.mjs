// Fills the compile cache (compile.mjs) for every TypeScript file of the project in one esbuild
// pass, so the test processes that follow only read it. Prints nothing when all is current.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { cacheFile, readCached, transformOptions, writeCached } from './compile.mjs';

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
  await Promise.all(
    files.map(async (file) => {
      const source = readFileSync(file, 'utf8');
      const entry = cacheFile(file, source);
      if (readCached(entry) !== undefined) return;
      // A file esbuild cannot parse is left to fail in the process that imports it, with its error.
      const out = await transform(source, transformOptions(file)).catch(() => undefined);
      if (out === undefined) return;
      writeCached(entry, out.code);
      compiled += 1;
    }),
  );
  return { files: files.length, compiled };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const r = await warmCache();
  process.stderr.write(
    `compile cache: ${r.compiled} of ${r.files} files compiled in ${Math.round(performance.now() - t0)} ms\n`,
  );
}
