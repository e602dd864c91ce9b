#!/usr/bin/env node
// `npm run build`: src/main.ts and everything it imports (our modules and the packages) as one
// ES module, dist/main.js. One file instead of ~400 modules to resolve, read and compile is
// what brings the daemon's start to a bare fastify app's: measured 450–510 ms of CPU to the
// first 200 for tsc's per-file output, 200–230 ms bundled (bench/scenarios/startup.ts).
// Type checking stays with tsc (`npm run typecheck`); esbuild only strips types.
// A module that must stay its own file (e.g. a worker thread's entry) is added to ENTRIES.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = {
  main: 'src/main.ts',
  'structural-worker': 'src/workers/structural-task.ts',
  'search-plan-worker': 'src/search/plan-task.ts',
  // The CLI (bin/lean-tool.js runs it): one file to load instead of the sources through tsx.
  cli: 'src/client/cli-entry.ts',
};

// In the bundle every module's import.meta.url is dist/main.js's, so a path relative to a
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
              text: `${path.relative(root, args.path)} uses import.meta.url; resolve files from PROJECT_ROOT (src/project-root.ts) so the bundled dist/main.js finds them`,
            },
          ],
        };
      }
      return undefined;
    });
  },
};

const result = await build({
  absWorkingDir: root,
  // Written below, each file under a temporary name renamed into place: a process starting
  // dist/main.js or dist/cli.js while another builds never reads half a file.
  write: false,
  entryPoints: ENTRIES,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  // Class and function names stay readable in logs and errors.
  keepNames: true,
  sourcemap: 'linked',
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // Lets a module tell the bundle from the sources (the structural pool picks its worker file by it).
  define: { __BUNDLED__: 'true' },
  // Swagger UI serves its page's assets from files beside its own module (__dirname), and Piscina
  // finds its own worker script the same way: they stay packages loaded from node_modules.
  external: ['@fastify/swagger-ui', '@fastify/swagger', 'piscina'],
  plugins: [ownUrlGuard],
  logLevel: 'warning',
});

await mkdir(path.join(root, 'dist'), { recursive: true });
for (const f of result.outputFiles) {
  const tmp = `${f.path}.${process.pid}.tmp`;
  await writeFile(tmp, f.contents);
  await rename(tmp, f.path);
}
