// dist/main.js, what `npm start` runs (scripts/build.mjs copies this file there, beside
// dist/code-cache.mjs): runs the daemon's bundle, dist/daemon.cjs, with V8's code cache.
// Compiling the 2.2 MB bundle (parsing it, then each function at its first call) was ~130 ms of
// the ~310 ms of CPU to the first 200; from the cache V8 deserialises the compiled functions
// instead (~180 ms in all, a bare fastify app's; docs/architecture.md).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle } from './code-cache.mjs';

const { exports, saveCache } = runBundle(path.join(path.dirname(fileURLToPath(import.meta.url)), 'daemon.cjs'));
// The cache is written once the daemon listens (src/main.ts's `started`): then it holds every
// function the start compiled. If `started` rejects, that rejection still ends the process
// (nothing handles it here).
exports.started.then(() => setImmediate(saveCache));
