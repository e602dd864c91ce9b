#!/usr/bin/env node
// The CLI entry: runs the bundled CLI (dist/cli.cjs, built by scripts/build.mjs when missing or
// older than the sources, as `npm start` does for the daemon) with V8's code cache
// (dist/code-cache.mjs, written by the first call of a build), so a call compiles no TypeScript
// and little JavaScript: `lean-tool --version` takes ~80 ms of CPU (~105 ms without the cache,
// ~0.5 s through tsx). If the bundle cannot be built (no esbuild, a read-only checkout), the
// sources run through tsx as before.
// Exit codes as AXLE's CLI: 130 on Ctrl-C, 1 on an unexpected error (see src/client/cli.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../scripts/build-if-stale.mjs';

process.on('SIGINT', () => {
  process.stderr.write('\nInterrupted\n');
  process.exit(130);
});

/** The CLI's `main`, and what to do once it has run (write the code cache if this build has none). */
async function loadCli() {
  let built = 1;
  try {
    built = buildIfStale();
  } catch (e) {
    process.stderr.write(
      `lean-tool: cannot build dist/ (${e instanceof Error ? e.message : String(e)}); running the sources\n`,
    );
  }
  if (built === 0) {
    const { runBundle } = await import('../dist/code-cache.mjs');
    const { exports, saveCache } = runBundle(fileURLToPath(new URL('../dist/cli.cjs', import.meta.url)));
    return { main: exports.main, saveCache };
  }
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/client/cli-entry.ts');
  return { main, saveCache: () => {} };
}

const { main, saveCache } = await loadCli();
try {
  process.exitCode = await main(process.argv.slice(2), {
    stdin: () => readFileSync(0, 'utf8'),
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    isTTY: Boolean(process.stderr.isTTY),
  });
} catch (e) {
  process.stderr.write(`lean-tool: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
saveCache();
