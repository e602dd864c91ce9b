// One source for how a TypeScript file becomes the JavaScript that runs it outside the bundle
// (tests, the CLI's dev path): esbuild strips the types, the output is kept in a content-addressed
// cache, so a module is compiled once per content and every later process only reads a file.
// What tsx did per process (start its loader, an esbuild service, read its own cache) cost
// ~0.45 s of CPU before a test's first line; reading a cached file costs well under 1 ms.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Git-ignored; safe to delete at any time (entries are named by the hash of what produced them). */
export const CACHE_DIR = process.env.LEAN_TOOL_TS_CACHE || path.join(ROOT, '.cache', 'ts');

// Bumped whenever the options below change, so old entries are never reused.
const SALT = 'esbuild-ts-v1';
const TSCONFIG = { compilerOptions: { target: 'ES2022', verbatimModuleSyntax: true, useDefineForClassFields: true } };

/** esbuild's transform options for one file; the inline map keeps stack traces on the .ts lines. */
export function transformOptions(file) {
  return {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: file,
    tsconfigRaw: TSCONFIG,
    logLevel: 'silent',
  };
}

/** The cache entry of one source text (its path is part of the key: the inline map names it). */
export function cacheFile(file, source) {
  const h = createHash('sha256').update(SALT).update('\0').update(file).update('\0').update(source).digest('hex');
  return path.join(CACHE_DIR, h.slice(0, 2), `${h.slice(2)}.js`);
}

export function readCached(entry) {
  try {
    return readFileSync(entry, 'utf8');
  } catch {
    return undefined;
  }
}

/** Written to a unique temporary name first and renamed: processes running at once never read half a file. */
export function writeCached(entry, code) {
  mkdirSync(path.dirname(entry), { recursive: true });
  const tmp = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, code);
  renameSync(tmp, entry);
}
