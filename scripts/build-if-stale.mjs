#!/usr/bin/env node
// `npm start`'s prestart, and bin/lean-tool.js before it runs dist/cli.cjs: build dist/
// (scripts/build.mjs) when it is missing or older than any source, so a fresh clone's
// `npm ci && npm start` works and a started daemon (or the CLI) runs one plain JavaScript file
// (no TypeScript compiled at start, nothing to resolve: startup ~200 ms of CPU, `lean-tool --version`
// ~60 ms). The check costs a few milliseconds: one stat per source file.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Written after a successful build: newer than every input means dist/ is current.
const stamp = path.join(root, 'dist', '.build-stamp');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Whether dist/ holds a build of the current sources (every output of scripts/build.mjs and the stamp). */
export function isCurrent() {
  const inputs = Math.max(
    newest(path.join(root, 'src')),
    // The pages /v1/docs serves, copied to dist/site.
    newest(path.join(root, 'docs')),
    ...[
      'README.md',
      'scripts/build.mjs',
      'scripts/code-cache.mjs',
      'scripts/daemon-loader.mjs',
      'package-lock.json',
      'package.json',
    ].map((f) => statSync(path.join(root, f)).mtimeMs),
  );
  return (
    existsSync(stamp) &&
    [
      'main.js',
      'code-cache.mjs',
      'daemon.cjs',
      'cli.cjs',
      'structural-worker.js',
      'search-plan-worker.js',
      'config-files.js',
      'site/README.md',
    ].every((f) => existsSync(path.join(root, 'dist', f))) &&
    statSync(stamp).mtimeMs >= inputs
  );
}

/** Builds dist/ unless it is current; returns the build's exit status (0: current or built). */
export function buildIfStale() {
  if (isCurrent()) return 0;
  process.stderr.write('building dist/ (scripts/build.mjs)…\n');
  const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
  if (built.status !== 0) {
    process.stderr.write('the build failed; see the errors above\n');
    return built.status ?? 1;
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(buildIfStale());
