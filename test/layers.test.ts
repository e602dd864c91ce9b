/**
 * The layers, one way. A request flows edge → contract → admission → tools → syntax/backend;
 * imports point the other way only in the sense that each part may use the parts *below* it in
 * the table here and nothing at its own rank or above. A change that makes the backend import a
 * tool, or the source model import the contract, fails this test. Type-only imports count too:
 * a type is still a dependency a reader must follow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

const SRC = path.join(import.meta.dirname, '..', 'src');

/** Rank of each part of src/ (a folder, or a file at the top); a part imports only lower ranks. */
const RANK: Record<string, number> = {
  // Leaves: no import of any other part.
  'project-root': 0,
  'config-files': 0,
  errors: 0,
  log: 0,
  util: 0,
  sync: 0,
  host: 0,
  syntax: 0,
  // The result cache keeps its keys flat (util/flat-string.ts).
  cache: 1,
  version: 1,
  contract: 1,
  envs: 2,
  backend: 3,
  admission: 4,
  tools: 4,
  search: 4,
  workers: 5,
  server: 6,
  cluster: 7,
  metrics: 7,
  config: 8,
  // Roots: the daemon's composition, the doctor's checks, the client (which talks HTTP only).
  app: 9,
  doctor: 9,
  client: 9,
  main: 10,
};

/**
 * Parts that may reach only the parts listed, whatever their rank allows. The adapters (MCP,
 * Kimina) only translate: they reach tools, the backend and search through the pipeline, never
 * directly. Search is the backend's other client beside the tools (it drives REPL sessions by
 * proof state, so it uses the backend's lease, protocol and process modules) and never a tool.
 */
const CONFINED: Record<string, readonly string[]> = {
  'server/adapters': ['admission', 'contract', 'envs', 'errors', 'log', 'server', 'util'],
  search: ['backend', 'contract', 'envs', 'errors', 'project-root', 'sync', 'syntax', 'util'],
};

/** The confined part a file belongs to, if any (`server/adapters/mcp.ts` → `server/adapters`). */
function confinedPartOf(file: string): string | undefined {
  const rel = path.relative(SRC, file).split(path.sep).join('/');
  return Object.keys(CONFINED).find((p) => rel.startsWith(`${p}/`));
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

const partOf = (file: string) => path.relative(SRC, file).split(path.sep)[0]!.replace(/\.ts$/, '');

/** Relative imports and re-exports of a module, type-only ones included. */
const importsOf = (text: string) =>
  [...text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'(\.[^']+)'/gm)].map((m) => m[1]!);

function crossings(): { from: string; to: string; file: string }[] {
  return tsFiles(SRC).flatMap((file) =>
    importsOf(readFileSync(file, 'utf8'))
      .map((spec) => ({ from: partOf(file), to: partOf(path.resolve(path.dirname(file), spec)), file }))
      .filter((e) => e.from !== e.to),
  );
}

t.test('every part of src/ has a rank', async (t) => {
  const parts = new Set(tsFiles(SRC).map(partOf));
  t.same(
    [...parts].filter((p) => RANK[p] === undefined),
    [],
    'a new folder gets a place in the table',
  );
  t.ok(parts.size >= 20, `${parts.size} parts`);
});

t.test('imports point only to lower ranks', async (t) => {
  const all = crossings();
  t.ok(all.length > 200, `${all.length} imports across parts`);
  const upward = all
    .filter((e) => RANK[e.to]! >= RANK[e.from]!)
    .map((e) => `${path.relative(SRC, e.file)}: ${e.from} (${RANK[e.from]}) → ${e.to} (${RANK[e.to]})`);
  t.same(upward, [], 'no import at its own rank or above');
});

t.test('the adapters and search reach only the parts listed for them', async (t) => {
  const all = crossings();
  const outside = all
    .filter((e) => {
      const confined = confinedPartOf(e.file);
      return confined !== undefined && !CONFINED[confined]!.includes(e.to);
    })
    .map((e) => `${path.relative(SRC, e.file)} → ${e.to}`);
  t.same(outside, [], 'through the pipeline (adapters) or the backend (search) instead');
  for (const part of Object.keys(CONFINED)) {
    t.ok(
      all.some((e) => confinedPartOf(e.file) === part),
      `${part}: its imports are read`,
    );
  }
  t.equal(confinedPartOf(path.join(SRC, 'server', 'adapters', 'mcp.ts')), 'server/adapters');
  t.equal(confinedPartOf(path.join(SRC, 'server', 'pipeline.ts')), undefined);
});

t.test('the scan reads type-only imports and re-exports', async (t) => {
  t.same(importsOf("import type { A } from '../tools/types.ts';\nexport { B } from './b.ts';\nconst x = 1;"), [
    '../tools/types.ts',
    './b.ts',
  ]);
});

t.test('docs/architecture.md lists the same parts with the same ranks', async (t) => {
  const doc = readFileSync(path.join(SRC, '..', 'docs', 'architecture.md'), 'utf8');
  const documented = Object.fromEntries(
    [...doc.matchAll(/^\| `([\w-]+)` \| (\d+) \|/gm)].map((m) => [m[1]!, Number(m[2])]),
  );
  t.same(documented, RANK, 'the layer table of the docs is the one enforced here');
  const confined = Object.fromEntries(
    [...doc.matchAll(/^\| `([\w/-]+)` \| only ([\w, -]+) \|/gm)].map((m) => [m[1]!, m[2]!.split(', ')]),
  );
  t.same(confined, CONFINED, 'the confined parts of the docs are the ones enforced here');
});
