/**
 * Content keys: the canonical form of a header (what a process imported, and so the key
 * of the pool it belongs to), a root (the header a session elaborated first) and a chain
 * over the commands sent after it, so key_i names "this root, then exactly these i
 * commands" and two requests sharing a preamble share its keys.
 */
import { hash } from 'node:crypto';
import type { Origin } from '../protocol/messages.ts';

const sha = (s: string) => hash('sha256', s);

/** A header in canonical form, and where each of its lines came from in the raw header. */
export interface CanonicalHeader {
  /** One statement a line: `module`, `prelude`, `[public] [meta] import [all] Name`. */
  text: string;
  /** origins[i]: where line i+1 of `text` starts in the raw header. */
  origins: Origin[];
}

const STARTERS = new Set(['module', 'prelude']);
const IMPORT_PARTS = new Set(['public', 'meta', 'private', 'import', 'all', 'runtime']);

/**
 * The header's statements in order, with comments (`--`, nested `/- -/`), whitespace and
 * repeated imports removed, so headers that differ only in trivia share a pool and a root
 * (Kimina keys by raw text and misses on trivia: its issue #73). Header grammar: Lean's
 * [lean4 v4.28.0: src/Lean/Parser/Module.lean] (`header := optional "module" >> optional "prelude" >> many import`,
 * `import := optional "public" >> optional "meta" >> "import " >> optional "all" >> ident`).
 * One linear pass; names in «» may hold spaces.
 */
export function canonicalHeaderOf(raw: string): CanonicalHeader {
  const statements: { text: string; origin: Origin }[] = [];
  let cur: string[] = [];
  let curOrigin: Origin = { line: 1, column: 0 };
  const flush = () => {
    if (cur.length > 0) statements.push({ text: cur.join(' '), origin: curOrigin });
    cur = [];
  };
  const add = (tok: string, at: Origin) => {
    if (STARTERS.has(tok)) {
      flush();
      statements.push({ text: tok, origin: at });
      return;
    }
    if (cur.length === 0) curOrigin = at;
    cur.push(tok);
    // An import is complete at its module name (the first word after `import` that is not `all`/`runtime`).
    const i = cur.indexOf('import');
    if (!IMPORT_PARTS.has(tok) && (i >= 0 || cur.length === 1)) flush();
  };

  const chars = Array.from(raw);
  let line = 1;
  let column = 0;
  let tok = '';
  let tokAt: Origin = { line: 1, column: 0 };
  const endTok = () => {
    if (tok) add(tok, tokAt);
    tok = '';
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '-' && chars[i + 1] === '-' && tok === '') {
      while (i < chars.length && chars[i] !== '\n') i++;
      i--;
      continue;
    }
    if (c === '/' && chars[i + 1] === '-' && tok === '') {
      endTok();
      let depth = 0;
      for (; i < chars.length; i++) {
        const d = chars[i]!;
        if (d === '/' && chars[i + 1] === '-') {
          depth++;
          i++;
          column += 2;
        } else if (d === '-' && chars[i + 1] === '/') {
          depth--;
          i++;
          column += 2;
          if (depth === 0) break;
        } else if (d === '\n') {
          line++;
          column = 0;
        } else column++;
      }
      continue;
    }
    if (c === '«') {
      if (!tok) tokAt = { line, column };
      for (; i < chars.length && chars[i] !== '»'; i++) {
        tok += chars[i];
        column++;
      }
      if (i < chars.length) {
        tok += '»';
        column++;
      }
      continue;
    }
    if (c === '\n') {
      endTok();
      line++;
      column = 0;
      continue;
    }
    if (/\s/.test(c)) {
      endTok();
      column++;
      continue;
    }
    if (!tok) tokAt = { line, column };
    tok += c;
    column++;
  }
  endTok();
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

export const rootKey = (header: string) => sha(`root\u0000${canonicalHeader(header)}`);

export function chainKeys(root: string, texts: readonly string[]): string[] {
  const out: string[] = [];
  let prev = root;
  for (const t of texts) {
    prev = sha(`${prev}\u0000${t}`);
    out.push(prev);
  }
  return out;
}
