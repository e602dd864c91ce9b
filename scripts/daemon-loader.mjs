// dist/main.js, what `npm start` runs (scripts/build.mjs copies this file there, beside
// dist/code-cache.mjs): runs the daemon's bundle, dist/daemon.cjs, with V8's code cache.
// Compiling the 2.2 MB bundle (parsing it, then each function at its first call) was ~130 ms of
// the ~310 ms of CPU to the first 200; from the cache V8 deserialises the compiled functions
// instead (~180 ms in all, a bare fastify app's; docs/architecture.md). With fastPaths.codeCache
// off in the configuration's files (read here, before the bundle: dist/config-files.js, built from
// src/config-files.ts), Node's require() compiles the bundle and no cache is read or written.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle } from './code-cache.mjs';
import { codeCacheSetting } from './config-files.js';

const dist = path.dirname(fileURLToPath(import.meta.url));
const { exports, saveCache } = runBundle(path.join(dist, 'daemon.cjs'), {
  cache: codeCacheSetting(process.env, path.dirname(dist)),
});
// The cache is written once the daemon listens (src/main.ts's `started`): then it holds every
// function the start compiled. If `started` rejects, that rejection still ends the process
// (nothing handles it here).
exports.started.then(() => setImmediate(saveCache));
