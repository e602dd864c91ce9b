/**
 * No function in src/ a reader must scroll: every function with a body (declarations, methods,
 * constructors, arrows, function expressions) is under 60 lines, nested functions counted
 * inside their parent's length as well as on their own. No line in src/ is wider than 160
 * characters either (Prettier cannot break a long string: split it into parts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import ts from 'typescript';

const LIMIT = 60;
const LINE_LIMIT = 160;
const SRC = new URL('../src/', import.meta.url);

interface FunctionLength {
  /** `file:line` of its first line. */
  at: string;
  /** Its path of names from the outermost function: `registerStream/get(…)/onMessage`, `Metrics.constructor`. */
  name: string;
  lines: number;
}

/** What a function is called where it stands: its own name, the variable or property it is assigned to, or the call it is passed to. */
function ownName(n: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  const cls = ts.isClassLike(n.parent) ? `${n.parent.name?.text ?? '<class>'}.` : '';
  if (ts.isConstructorDeclaration(n)) return `${cls}constructor`;
  if (n.name) return `${cls}${n.name.getText(sf)}`;
  const p = n.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
    return `${ts.isPropertyDeclaration(p) && ts.isClassLike(p.parent) ? `${p.parent.name?.text ?? '<class>'}.` : ''}${p.name.getText(sf)}`;
  if (ts.isCallExpression(p) || ts.isNewExpression(p)) {
    const callee = p.expression;
    return `${ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(sf)}(…)`;
  }
  return '<anonymous>';
}

/** Every function with a body and its length in lines, nested ones inside their parent's. */
function functionLengths(file: string, text: string): FunctionLength[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: FunctionLength[] = [];
  const visit = (n: ts.Node, outer: string) => {
    let path = outer;
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const from = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const to = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      path = outer ? `${outer}/${ownName(n, sf)}` : ownName(n, sf);
      out.push({ at: `${file}:${from + 1}`, name: path, lines: to - from + 1 });
    }
    ts.forEachChild(n, (c) => visit(c, path));
  };
  visit(sf, '');
  return out;
}

const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|mjs)$/.test(f));
const long = files
  .flatMap((f) => functionLengths(f, readFileSync(new URL(f, SRC), 'utf8')))
  .filter((f) => f.lines >= LIMIT)
  .sort((a, b) => b.lines - a.lines);

t.test('the scan measures and names every function, nested ones too', async (t) => {
  const text = `function f() {
  return () => {
    return 1;
  };
}
class C {
  constructor() {}
  m() { const g = function () {}; [1].map((x) => x); }
}`;
  t.same(
    functionLengths('x.ts', text).map((f) => [f.at, f.name, f.lines]),
    [
      ['x.ts:1', 'f', 5],
      ['x.ts:2', 'f/<anonymous>', 3],
      ['x.ts:7', 'C.constructor', 1],
      ['x.ts:8', 'C.m', 1],
      ['x.ts:8', 'C.m/g', 1],
      ['x.ts:8', 'C.m/map(…)', 1],
    ],
  );
  t.ok(files.length > 150, `${files.length} files of src/ read`);
  t.ok(files.includes('tools/verify-proof.ts') && files.includes('backend/session/session.ts'), 'subfolders too');
});

t.test(`no function in src/ is ${LIMIT} lines or longer`, async (t) => {
  const offending = long.map((f) => `${f.at} ${f.name} (${f.lines} lines)`);
  t.same(offending, [], 'split each into named steps (as src/tools/ is)');
});

/** `file:line (N characters)` for each line longer than LINE_LIMIT (counted in code points, as an editor shows them). */
function longLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const width = [...line].length;
    return width > LINE_LIMIT ? [`${file}:${i + 1} (${width} characters)`] : [];
  });
}

t.test(`no line in src/ is over ${LINE_LIMIT} characters`, async (t) => {
  t.same(longLines('x.ts', `a\n${'é'.repeat(LINE_LIMIT)}\n${'b'.repeat(LINE_LIMIT + 1)}`), ['x.ts:3 (161 characters)']);
  const offending = files.flatMap((f) => longLines(f, readFileSync(new URL(f, SRC), 'utf8')));
  t.same(offending, [], 'split long strings into parts (src/errors.ts: joined)');
});
