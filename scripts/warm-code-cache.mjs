// Writes dist/daemon.cjs.cache at image build time (Dockerfile, build stage): the image's dist/
// is read-only to the daemon, so without this every container would compile the bundle at each
// start (~130 ms of CPU more; docs/architecture.md). Starts the built daemon on a free loopback
// port, waits until its loader has written the cache (scripts/daemon-loader.mjs writes it once
// the daemon listens), then stops it. The cache is valid only for the same Node binary and V8
// flags (scripts/code-cache.mjs checks both): the Dockerfile builds and runs on one Node image.
// Exits 0 either way: an image without a cache starts as it did before, only slower.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const CACHE = path.join(DIST, 'daemon.cjs.cache');
const WAIT_MS = 60_000;

const daemon = spawn(process.execPath, [path.join(DIST, 'main.js')], {
  env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const started = Date.now();
while (!existsSync(CACHE) && daemon.exitCode === null && Date.now() - started < WAIT_MS)
  await new Promise((r) => setTimeout(r, 100));
// The loader writes to a temporary name and renames it: once the name exists, the file is whole.
daemon.kill('SIGTERM');
console.log(
  existsSync(CACHE) ? `code cache written: ${CACHE}` : 'no code cache written (the daemon starts without one)',
);
