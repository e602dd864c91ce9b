// Runs a CommonJS bundle of scripts/build.mjs (dist/daemon.cjs, dist/cli.cjs) with V8's code
// cache for it (<bundle>.cache), as Node runs a CommonJS module but without compiling it:
// V8 deserialises the functions the cache holds instead of parsing the file and compiling each
// function at its first call. Node 20 caches no ES module's code (module.enableCompileCache is
// Node 22), hence CommonJS bundles compiled through vm.Script with cachedData
// (docs/architecture.md). scripts/build.mjs copies this file to dist/code-cache.mjs, which
// dist/main.js (the daemon, scripts/daemon-loader.mjs) and bin/lean-tool.js (the CLI) import.
//
// Fast path (config fastPaths.codeCache, read by dist/main.js; off: `cache: false`, Node's own
// require() of the bundle). Retire when: package.json engines.node's minimum is 22.8.0 or later,
// where module.enableCompileCache() caches CommonJS and ES modules alike (Node 22.8.0 changelog,
// nodejs/node#54501; NODE_COMPILE_CACHE since 22.1.0): then an ES module bundle and that call
// replace this file (test/fast-paths.test.ts checks engines.node), or re-check by 2027-05-31.
import { hash } from 'node:crypto';
import { accessSync, constants, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

// V8 checks a cache's version, flags and source length, not its bytes: damaged data (a torn
// disk write, a bad sector) crashed every start (SIGSEGV/SIGTRAP, nothing logged), and the file
// was never replaced. The data's sha256 follows the key, checked before V8 sees the data.
const SUM = 'sha256 ';
const SUM_LINE_BYTES = SUM.length + 64 + 1;

const sumLine = (data) => `${SUM}${hash('sha256', data, 'hex')}\n`;

/**
 * The cached data written for this build and Node (`key`) whose checksum holds: `{ data }`;
 * `{ damaged: true }` when its checksum does not; undefined when there is none for this build.
 */
function readCache(cacheFile, key) {
  let file;
  try {
    file = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const header = Buffer.from(key);
  if (!file.subarray(0, header.length).equals(header)) return undefined;
  const sum = file.subarray(header.length, header.length + SUM_LINE_BYTES).toString('latin1');
  const data = file.subarray(header.length + SUM_LINE_BYTES);
  return sum === sumLine(data) ? { data } : { damaged: true };
}

/**
 * The cache of what has been compiled so far, under a temporary name renamed into place. A
 * read-only dist/ (the container image's) goes without, and is asked first: serialising the
 * daemon's cache takes ~20 ms.
 */
function writeCache(script, cacheFile, key) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    accessSync(path.dirname(cacheFile), constants.W_OK);
    const data = script.createCachedData();
    writeFileSync(tmp, Buffer.concat([Buffer.from(key), Buffer.from(sumLine(data)), data]));
    renameSync(tmp, cacheFile);
  } catch {
    /* no cache: the next start compiles, as without one */
  }
}

/** The bundle compiled (from the cache when there is one for it), its cache key, and whether the cache served. */
function compile(bundle, cacheFile) {
  const source = readFileSync(bundle, 'utf8');
  // Whose cache it is: the build's id (the bundle's first line, scripts/build.mjs) and the Node
  // binary. V8 rejects a cache of another V8 version or other flags, but of the source it checks
  // only the length, so a cache must never be used with another build.
  const key = `${source.slice(0, source.indexOf('\n'))} node ${process.version} ${process.arch}\n`;
  const cache = readCache(cacheFile, key);
  if (cache?.damaged)
    process.stderr.write(
      `lean-tool: code cache ${cacheFile} is damaged (its sha256 does not match): not used, written anew\n`,
    );
  const cachedData = cache?.data;
  // Node's CommonJS wrapper on a line of its own (lineOffset keeps the bundle's line numbers for
  // stack traces and its source map). The bundle has no import(): a script compiled from the
  // cache loses vm's callback for it (scripts/build.mjs turns it into require()).
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
    filename: bundle,
    lineOffset: -1,
    cachedData,
  });
  return { script, key, cached: cachedData !== undefined && !script.cachedDataRejected };
}

/**
 * Runs `bundle` (an absolute path) and returns its exports, and `saveCache`: when the bundle ran
 * without a usable cache (the first run of a build, a Node upgrade, other V8 flags), writes one
 * holding every function compiled so far, so the caller calls it once the work worth caching
 * has run (~20 ms for the daemon's); otherwise it does nothing. `cache: false`: the plain path,
 * Node's require(), with no cache read or written.
 */
export function runBundle(bundle, { cache: useCache = true } = {}) {
  if (!useCache) return { exports: createRequire(bundle)(bundle), saveCache: () => {} };
  const cacheFile = `${bundle}.cache`;
  const { script, key, cached } = compile(bundle, cacheFile);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  return { exports: module.exports, saveCache: cached ? () => {} : () => writeCache(script, cacheFile, key) };
}
