/**
 * Structure rules a newcomer relies on: no tool module imports another tool module (that tools are
 * short named rules, as all of src/ is, test/structure.test.ts checks).
 */
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';

const TOOLS = new URL('../../src/tools/', import.meta.url);
const sources = new Map(
  readdirSync(TOOLS)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => [f, readFileSync(new URL(f, TOOLS), 'utf8')]),
);

/** A tool module exports a tool implementation (`ToolImpl`), or a function that builds or wraps one. */
const isToolModule = (text: string) => /^export (const \w+: ToolImpl\b|function \w+\([^)]*\): ToolImpl\b)/m.test(text);
const toolModules = new Set([...sources].filter(([f, text]) => f !== 'index.ts' && isToolModule(text)).map(([f]) => f));

/** The sibling modules a file imports (`./x.ts`), type-only imports included. */
const siblingImports = (text: string) =>
  [...text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'\.\/([\w.-]+\.ts)'/gm)].map((m) => m[1]!);

t.test('the scan finds the tool modules', async (t) => {
  for (const f of [
    'verify-proof.ts',
    'disprove.ts',
    'have2lemma.ts',
    'have2sorry.ts',
    'merge.ts',
    'rename.ts',
    'repair-proofs.ts',
  ])
    t.ok(toolModules.has(f), f);
  t.notOk(toolModules.has('elaborate.ts'), 'elaborate.ts is shared, not a tool');
  t.same(siblingImports("import { a } from './merge.ts';\nimport type { B } from './types.ts';"), [
    'merge.ts',
    'types.ts',
  ]);
});

t.test('no tool module imports another tool module', async (t) => {
  const offending = [...toolModules].flatMap((f) =>
    siblingImports(sources.get(f)!)
      .filter((dep) => toolModules.has(dep))
      .map((dep) => `${f} → ${dep}`),
  );
  t.same(offending, [], 'shared pieces belong in src/syntax/ or a shared tools module');
});
