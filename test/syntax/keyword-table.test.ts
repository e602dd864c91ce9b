/**
 * One keyword table (issue 26): Lean's words live in src/syntax/keywords.ts, and every other part asks
 * src/syntax/ (the one lexer) instead of keeping a list of its own. The backend kept five such lists that had
 * drifted apart (declaration keywords, modifiers, header words). This scan of src/ outside src/syntax/ finds
 * string lists (array literals, regular expressions) naming three or more of the table's words; a list of the
 * source model's own answers (the `DeclKind` / `CommandKind` values a tool compares `d.kind` with) is no
 * keyword list and passes.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import ts from 'typescript';
import * as keywords from '../../src/syntax/keywords.ts';

const SRC = path.join(import.meta.dirname, '..', '..', 'src');

/** Every identifier-shaped or `#` word of the table. */
const WORDS = new Set(
  Object.values(keywords)
    .filter((v): v is Set<string> => v instanceof Set)
    .flatMap((s) => [...s])
    .filter((w) => /^[#\p{L}_]/u.test(w)),
);

/** The string literals of a type alias `name` in a file of src/syntax/ (the model's kinds). */
function literalTypes(file: string, name: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(path.join(SRC, 'syntax', file), 'utf8'), ts.ScriptTarget.Latest);
  const alias = sf.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
  if (!alias || !ts.isTypeAliasDeclaration(alias) || !ts.isUnionTypeNode(alias.type)) return [];
  return alias.type.types.flatMap((u) =>
    ts.isLiteralTypeNode(u) && ts.isStringLiteral(u.literal) ? [u.literal.text] : [],
  );
}
const KINDS = new Set([...literalTypes('declarations.ts', 'DeclKind'), ...literalTypes('commands.ts', 'CommandKind')]);

/** The lists of `text` naming 3+ keywords, one of them at least no kind of the model. */
function keywordLists(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const check = (n: ts.Node, candidates: string[]) => {
    const hits = candidates.filter((w) => WORDS.has(w));
    if (hits.length >= 3 && hits.some((w) => !KINDS.has(w)))
      out.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${hits.join(' ')}`);
  };
  const visit = (n: ts.Node) => {
    if (ts.isArrayLiteralExpression(n))
      check(
        n,
        n.elements.flatMap((e) => (ts.isStringLiteral(e) ? [e.text] : [])),
      );
    else if (ts.isRegularExpressionLiteral(n)) check(n, n.text.match(/[#\p{L}_][\p{L}\d_!?]*/gu) ?? []);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });

t.test('the scan finds a keyword list, in either spelling, and lets the model’s kinds pass', async (t) => {
  t.ok(WORDS.has('theorem') && WORDS.has('noncomputable') && WORDS.has('#check') && WORDS.has('import'));
  t.ok(KINDS.has('theorem') && KINDS.has('section') && KINDS.has('declaration'), 'the kinds are read');
  t.notOk(KINDS.has('lemma'), '`lemma` is a keyword, never a kind');
  // The backend's former lists (src/backend/heartbeats/max-heartbeats.ts, src/backend/session/keys.ts before issue 26).
  t.equal(keywordLists('x.ts', "const D = new Set(['theorem', 'lemma', 'def', '#check']);").length, 1);
  t.equal(keywordLists('x.ts', "const M = new Set(['private', 'protected', 'noncomputable']);").length, 1);
  t.equal(keywordLists('x.ts', "const I = new Set(['public', 'meta', 'private', 'import', 'all']);").length, 1);
  t.equal(
    keywordLists('x.ts', 'const R = /^(?:(?:noncomputable|public|private)\\s+)*(?:section|namespace)\\b/;').length,
    1,
  );
  t.same(keywordLists('x.ts', "const K = new Set(['def', 'abbrev', 'opaque']);"), [], 'DeclKind values');
  t.same(
    keywordLists('x.ts', "if (['open', 'set_option', 'universe'].includes(c.kind)) f();"),
    [],
    'CommandKind values',
  );
  t.same(keywordLists('x.ts', "const s = ['a', 'theorem', 'b'];"), [], 'one keyword is no list');
});

t.test('outside src/syntax/, no part of src/ keeps its own list of Lean keywords', async (t) => {
  const files = sourceFiles(SRC).filter((f) => !f.startsWith(path.join(SRC, 'syntax') + path.sep));
  t.ok(files.length > 100, `${files.length} files scanned`);
  const found = files.flatMap((f) => keywordLists(path.relative(SRC, f), readFileSync(f, 'utf8')));
  t.same(found, [], 'ask src/syntax/ (keywords.ts, command-head.ts, the lexer) for Lean words instead');
});
