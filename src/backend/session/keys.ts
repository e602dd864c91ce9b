/**
 * Content keys: the canonical form of a header (what a process imported, and so the key
 * of the pool it belongs to), a root (the header a session elaborated first) and a chain
 * over the commands sent after it, so key_i names "this root, then exactly these i
 * commands" and two requests sharing a preamble share its keys.
 */
import { hash } from 'node:crypto';
import { HEADER_STATEMENTS, IMPORT_KEYWORDS } from '../../syntax/keywords.ts';
import { isTrivia, lex, type TokenKind } from '../../syntax/lexer.ts';
import { LineIndex } from '../../syntax/positions.ts';
import { flatString } from '../../util/flat-string.ts';
import type { Origin } from '../protocol/messages.ts';

const sha = (s: string) => hash('sha256', s);

/** A header in canonical form, and where each of its lines came from in the raw header. */
export interface CanonicalHeader {
  /** One statement a line: `module`, `prelude`, `[public] [meta] import [all] Name`. */
  text: string;
  /** origins[i]: where line i+1 of `text` starts in the raw header. */
  readonly origins: readonly Origin[];
}

/** Headers up to this long are remembered (a few hundred of them): most requests name the environment's own. */
const MEMO_MAX_CHARS = 4096;
const MEMO_ENTRIES = 256;

/**
 * A bounded memo of a pure function of a header: a miss names its header several times on
 * its way to a session (its pool, its root key, the session's roots), and each reading is a
 * lex and each key a SHA-256. Past MEMO_ENTRIES the oldest entry goes (first in, first out).
 */
function memoized<T>(f: (header: string) => T): (header: string) => T {
  const memo = new Map<string, T>();
  return (header) => {
    if (header.length > MEMO_MAX_CHARS) return f(header);
    let v = memo.get(header);
    if (v === undefined) {
      if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
      v = f(header);
      memo.set(header, v);
    }
    return v;
  };
}

/** Tokens of a header that are not statements' words: whitespace and comments of every kind. */
const isHeaderTrivia = (k: TokenKind) => isTrivia(k) || k === 'doc-comment' || k === 'mod-doc';

/**
 * The header's statements in order, with comments (`--`, nested `/- -/`), whitespace and
 * repeated imports removed, so headers that differ only in trivia share a pool and a root
 * (Kimina keys by raw text and misses on trivia: project-numina/kimina-lean-server issue #73). Header grammar: Lean's
 * [lean4 v4.28.0: src/Lean/Parser/Module.lean] (`header := optional "module" >> optional "prelude" >> many import`,
 * `import := optional "public" >> optional "meta" >> "import " >> optional "all" >> ident`).
 * The words are the source model's tokens (syntax/lexer.ts: the one reader of Lean text, so
 * `«a b»` names and nested comments are read as everywhere else), its words syntax/keywords.ts's; one linear pass.
 */
export const canonicalHeaderOf: (raw: string) => CanonicalHeader = memoized(readCanonicalHeader);

function readCanonicalHeader(raw: string): CanonicalHeader {
  const lines = new LineIndex(raw);
  const statements: { text: string; origin: Origin }[] = [];
  let words: string[] = [];
  let origin: Origin = { line: 1, column: 0 };
  const flush = () => {
    if (words.length > 0) statements.push({ text: words.join(' '), origin });
    words = [];
  };
  for (const t of lex(raw)) {
    if (isHeaderTrivia(t.kind)) continue;
    const word = raw.slice(t.start, t.end);
    const at = lines.toLean(t.start);
    if (HEADER_STATEMENTS.has(word)) {
      flush();
      statements.push({ text: word, origin: at });
      continue;
    }
    if (words.length === 0) origin = at;
    words.push(word);
    // An import is complete at its module name (the first word after `import` that is not `all`/`runtime`).
    if (!IMPORT_KEYWORDS.has(word) && (words.includes('import') || words.length === 1)) flush();
  }
  flush();
  const seen = new Set<string>();
  const kept = statements.filter((s) => {
    if (seen.has(s.text)) return false;
    seen.add(s.text);
    return true;
  });
  return { text: kept.map((s) => s.text).join('\n'), origins: kept.map((s) => s.origin) };
}

export const canonicalHeader = (header: string): string => canonicalHeaderOf(header).text;

export const rootKey: (header: string) => string = memoized((header) => sha(`root\u0000${canonicalHeader(header)}`));

/**
 * Chain keys up to this many characters are their own text (`chainKey`): a session remembers up
 * to `prefixEntries` outcomes under them, so this bounds what a key holds beyond a digest's 64.
 */
export const INLINE_CHAIN_KEY_CHARS = 256;

/**
 * The key of "the chain `prev`, then the command `text`": `prev`, then the text's length and the
 * text, as one string while that is at most INLINE_CHAIN_KEY_CHARS long, else its SHA-256. A
 * chain starts from a root key (64 hex digits), and each step appends its text behind its length:
 * read from the start, a key's text gives back its root and commands (a digest, 64 hex digits with
 * no NUL, names the longer chain it was made from), so two chains share a key only if they are one
 * chain. The digest of a short chain (one SHA-256 per command, OpenSSL run cold between the
 * client's and the REPL's turns) was a visible share of a miss's CPU in the daemon's perf profile.
 */
export function chainKey(prev: string, text: string): string {
  const form = `${prev}\u0000${text.length}\u0000${text}`;
  // Kept as a key for as long as its outcome is remembered: flat, not the rope it was built as.
  return form.length <= INLINE_CHAIN_KEY_CHARS ? flatString(form) : sha(form);
}

export function chainKeys(root: string, texts: readonly string[]): string[] {
  const out: string[] = [];
  let prev = root;
  for (const t of texts) {
    prev = chainKey(prev, t);
    out.push(prev);
  }
  return out;
}
