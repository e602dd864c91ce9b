/** Structure rules a newcomer relies on: no tool module imports another tool module; tools are short named rules. */
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import ts from 'typescript';

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

/** Every function with a body (declarations, methods, arrows) and its length in lines, nested ones inside their parent's. */
function functionLengths(file: string, text: string): { at: string; lines: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { at: string; lines: number }[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const from = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const to = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ at: `${file}:${from + 1}`, lines: to - from + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

t.test('the longest function in src/tools/ is under 60 lines', async (t) => {
  t.same(
    functionLengths('x.ts', 'function f() {\n  return () => {\n    return 1;\n  };\n}\n').map((f) => f.lines),
    [5, 3],
    'the scan measures nested functions too',
  );
  const all = [...sources].flatMap(([f, text]) => functionLengths(f, text)).sort((a, b) => b.lines - a.lines);
  t.ok(all.length > 100, `${all.length} functions measured`);
  t.same(
    all.filter((f) => f.lines >= 60),
    [],
    `longest: ${all[0]?.at} (${all[0]?.lines} lines)`,
  );
});
