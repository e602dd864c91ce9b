/**
 * `npm test` runs light test files several to a process (scripts/test.mjs,
 * test/helpers/run-group.ts), which waits for a file's end by the promises of its root
 * `t.test` calls. That holds only while a file's top-level code calls nothing else on the
 * root (`t.before`, `t.teardown`, `t.plan`, … would outlive the file or end the group):
 * every call on `t` outside a function must be `t.test` or `t.comment`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import ts from 'typescript';

const TEST_DIR = path.dirname(new URL(import.meta.url).pathname);
const ALLOWED = new Set(['test', 'comment']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** `t.<name>(…)` calls outside any function body, as `line: t.name`. */
function rootCalls(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n)) return;
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      ts.isIdentifier(n.expression.expression) &&
      n.expression.expression.text === 't'
    )
      found.push(`${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: t.${n.expression.name.text}`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

t.test('test files call only t.test and t.comment on the root (what a grouped run can wait for)', async (t) => {
  const files = testFiles(TEST_DIR);
  t.ok(files.length > 100, `${files.length} test files found`);
  const offending = files.flatMap((f) =>
    rootCalls(f)
      .filter((c) => !ALLOWED.has(c.split('t.')[1]!))
      .map((c) => `${path.relative(TEST_DIR, f)}:${c}`),
  );
  t.same(offending, [], 'no other root call');
  t.ok(
    rootCalls(path.join(TEST_DIR, 'structure.test.ts')).some((c) => c.endsWith('t.test')),
    'the check sees root calls',
  );
});
