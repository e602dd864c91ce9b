// dist/main.js, what `npm start` runs (scripts/build.mjs copies this file there): runs the
// daemon's bundle, dist/daemon.cjs, with V8's code cache for it, dist/daemon.cjs.cache.
// Compiling the 2.2 MB bundle (parsing it, then each function at its first call) was ~120 ms of
// the ~320 ms of CPU to the first 200; from the cache V8 deserialises the compiled functions
// instead (~200 ms in all, a bare fastify app's; docs/architecture.md). Node 20 caches no ES
// module's code (module.enableCompileCache is Node 22), hence a CommonJS bundle compiled
// through vm.Script as Node compiles a CommonJS module, with cachedData.
// The cache is written by the first start of each build (and after a Node upgrade, or when V8
// rejects it), once the daemon listens: then it holds every function the start compiled.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dir = path.dirname(fileURLToPath(import.meta.url));
const bundle = path.join(dir, 'daemon.cjs');
const cacheFile = `${bundle}.cache`;

/** The cached data written for this build and Node (`key`), if any. */
function readCache(key) {
  let file;
  try {
    file = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const header = Buffer.from(key);
  return file.subarray(0, header.length).equals(header) ? file.subarray(header.length) : undefined;
}

/** The cache of what has been compiled so far; a read-only dist/ only goes without. */
function writeCache(script, key) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([Buffer.from(key), script.createCachedData()]));
    renameSync(tmp, cacheFile);
  } catch {
    /* no cache: the next start compiles, as without one */
  }
}

/** The bundle compiled (from the cache when there is one for it), its cache key, and whether the cache served. */
function compile() {
  const source = readFileSync(bundle, 'utf8');
  // Whose cache it is: the build's id (the bundle's first line, scripts/build.mjs) and the Node
  // binary. V8 rejects a cache of another V8 version or other flags, but of the source it checks
  // only the length, so a cache must never be used with another build.
  const key = `${source.slice(0, source.indexOf('\n'))} node ${process.version} ${process.arch}\n`;
  const cachedData = readCache(key);
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

const { script, key, cached } = compile();
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dir);
// src/main.ts's `started` settles once the daemon listens; if it rejects, that rejection still
// ends the process (nothing handles it here). Writing takes ~20 ms, once per build.
if (!cached) module.exports.started.then(() => setImmediate(() => writeCache(script, key)));
