#!/usr/bin/env node
// `npm run build`: src/main.ts and everything it imports (our modules and the packages) as one
// file, dist/daemon.cjs, run by dist/main.js (scripts/daemon-loader.mjs) with V8's code cache
// (scripts/code-cache.mjs); the CLI likewise (dist/cli.cjs, run by bin/lean-tool.js).
// One file instead of ~400 modules to resolve, read and compile is what brings the daemon's start
// to a bare fastify app's: measured 450–510 ms of CPU to the first 200 for tsc's per-file output,
// ~310 ms bundled, ~180 ms with the code cache (bench/scenarios/startup.ts; docs/architecture.md).
// The worker threads' entries stay ES modules.
// Type checking stays with tsc (`npm run typecheck`); esbuild only strips types.
// A module that must stay its own file (e.g. a worker thread's entry) is added to ENTRIES.
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = {
  'structural-worker': 'src/workers/structural-task.ts',
  'search-plan-worker': 'src/search/plan-task.ts',
  // Read by dist/main.js (fastPaths.codeCache) before the daemon's bundle is compiled.
  'config-files': 'src/config-files.ts',
};
// Run through scripts/code-cache.mjs: CommonJS, because V8's code cache is given to a script
// (vm.Script), not to an ES module, on Node 20.
const CACHED_ENTRIES = {
  daemon: 'src/main.ts',
  // The CLI (bin/lean-tool.js runs it): one file to load instead of the sources through tsx.
  cli: 'src/client/cli-entry.ts',
};

// In a bundle every module's import.meta.url is the bundle's (dist/), so a path relative to a
// module's own URL points elsewhere: only src/project-root.ts (PROJECT_ROOT, which is one
// level up in both layouts) may use it; everything else goes through PROJECT_ROOT.
const ownUrlGuard = {
  name: 'own-url-guard',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (text.includes('import.meta.url') && !args.path.endsWith(path.join('src', 'project-root.ts'))) {
        return {
          errors: [
            {
              text: `${path.relative(root, args.path)} uses import.meta.url; resolve files from PROJECT_ROOT (src/project-root.ts) so the bundled daemon finds them`,
            },
          ],
        };
      }
      return undefined;
    });
  },
};

// A cached bundle's first line: its build id, written over this placeholder (same length, so the
// source map's lines hold) with a hash of the output; scripts/code-cache.mjs keys the cache by it.
const BUILD_ID_PLACEHOLDER = '0'.repeat(16);
const cachedBanner = [
  `// lean-tool-service build ${BUILD_ID_PLACEHOLDER}`,
  // Strict as the ES module bundle was (esbuild's own "use strict" comes after the banner).
  '"use strict";',
  "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;",
].join('\n');

const shared = {
  absWorkingDir: root,
  // Written below, each file under a temporary name renamed into place: a process starting
  // dist/main.js or bin/lean-tool.js while another builds never reads half a file.
  write: false,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  // Class and function names stay readable in logs and errors: pino logs an error's `type` as its
  // constructor's name, and V8 names a stack frame by the function's `name`. The price: a
  // defineProperty per named function or class as it is made (3,188 at start: ~7 ms of the
  // ~200 ms of CPU to the first 200, measured without it; on a hot path, a named closure per call).
  keepNames: true,
  sourcemap: 'linked',
  // Lets a module tell the bundle from the sources (the structural pool picks its worker file by it).
  define: { __BUNDLED__: 'true' },
  // Swagger UI serves its page's assets from files beside its own module (__dirname), and Piscina
  // finds its own worker script the same way: they stay packages loaded from node_modules.
  external: ['@fastify/swagger-ui', '@fastify/swagger', 'piscina'],
  plugins: [ownUrlGuard],
  logLevel: 'warning',
};

const [modules, cached] = await Promise.all([
  build({
    ...shared,
    entryPoints: ENTRIES,
    format: 'esm',
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  }),
  build({
    ...shared,
    entryPoints: CACHED_ENTRIES,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    banner: { js: cachedBanner },
    // import() of a package left outside (the docs' swagger packages, CommonJS) as require():
    // a script compiled from V8's code cache loses vm's dynamic import callback on Node 20.
    supported: { 'dynamic-import': false },
    define: { ...shared.define, 'import.meta.url': '__import_meta_url' },
  }),
]);

/** A cached bundle with its build id in place of the placeholder. */
function withBuildId(file) {
  if (!file.path.endsWith('.cjs')) return file.contents;
  // It would fail at run time (see `supported` above): refused here instead.
  if (file.text.includes('import(')) throw new Error(`${path.relative(root, file.path)} still calls import()`);
  const id = createHash('sha256').update(file.contents).digest('hex').slice(0, BUILD_ID_PLACEHOLDER.length);
  return Buffer.from(file.text.replace(BUILD_ID_PLACEHOLDER, id));
}

await mkdir(path.join(root, 'dist'), { recursive: true });
for (const f of [...modules.outputFiles, ...cached.outputFiles]) {
  const tmp = `${f.path}.${process.pid}.tmp`;
  await writeFile(tmp, withBuildId(f));
  await rename(tmp, f.path);
}
// The documentation /v1/docs serves (src/server/doc-pages.ts): the runtime image has no README.md or docs/.
await rm(path.join(root, 'dist', 'site'), { recursive: true, force: true });
await mkdir(path.join(root, 'dist', 'site', 'docs'), { recursive: true });
await copyFile(path.join(root, 'README.md'), path.join(root, 'dist', 'site', 'README.md'));
for (const f of await readdir(path.join(root, 'docs')))
  if (f.endsWith('.md')) await copyFile(path.join(root, 'docs', f), path.join(root, 'dist', 'site', 'docs', f));
// The loaders last (dist/main.js the very last), each copied under a temporary name and renamed.
for (const [from, to] of [
  ['code-cache.mjs', 'code-cache.mjs'],
  ['daemon-loader.mjs', 'main.js'],
]) {
  const tmp = path.join(root, 'dist', `${to}.${process.pid}.tmp`);
  await copyFile(path.join(root, 'scripts', from), tmp);
  await rename(tmp, path.join(root, 'dist', to));
}
