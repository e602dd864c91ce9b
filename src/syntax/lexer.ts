/**
 * A lossless lexer for Lean 4 source: every UTF-16 unit of the input belongs to exactly
 * one token, trivia included, so `tokens.map(text).join('') === src` for every input.
 * It never throws: unterminated strings/comments become `error` tokens to the end of
 * input, unknown characters become one-character symbols. Lean's token table is
 * extensible, so keywords are left as `ident` tokens and classified by the consumers.
 * Reference: [lean4 v4.28.0: src/Lean/Parser/Basic.lean, `tokenFnAux`].
 */
import { isDigit, isHexDigit, isIdFirst, isIdRest, isWhitespace } from './chars.ts';
import type { SigTokens } from './significant.ts';

export type TokenKind =
  | 'ws'
  | 'line-comment'
  | 'block-comment'
  | 'doc-comment'
  | 'mod-doc'
  | 'string'
  | 'raw-string'
  | 'char'
  | 'number'
  | 'field-idx'
  | 'field'
  | 'ident'
  | 'name-lit'
  | 'symbol'
  | 'error';

export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
}

export const isTrivia = (k: TokenKind) => k === 'ws' || k === 'line-comment' || k === 'block-comment';

// Multi-unit symbols that matter for structure (longest first within each lead char).
const SYMBOLS = [
  '<;>',
  '<|>',
  '<->',
  '|>.',
  '...',
  '`(',
  '``(',
  '@[',
  '#[',
  '%[',
  '.{',
  ':=',
  '::',
  '=>',
  '->',
  '<-',
  '<|',
  '|>',
  '..',
  '&&',
  '||',
  '==',
  '!=',
  '<=',
  '>=',
  '++',
  '^^',
  "''",
].sort((a, b) => b.length - a.length);
/** Multi-unit symbols indexed by their (ASCII) lead character. */
const SYMBOLS_BY_LEAD: (string[] | undefined)[] = [];
for (const s of SYMBOLS) (SYMBOLS_BY_LEAD[s.charCodeAt(0)] ??= []).push(s);

/** Macros whose string argument is an interpolated string [lean4: interpolatedStr uses]. */
const INTERPOLATING = new Set([
  'throwError',
  'throwErrorAt',
  'logInfo',
  'logWarning',
  'logError',
  'logInfoAt',
  'logWarningAt',
  'logErrorAt',
  'dbg_trace',
  'trace',
]);

const CLOSERS_FOR_FIELD = new Set([')', ']', '}', '⟩', '⦄', '⟧']);

/** All tokens as parallel arrays, plus the significant-token view, built in one pass. */
export interface Scanned {
  /** All tokens (only filled with keepTrivia). */
  kinds: TokenKind[];
  starts: number[];
  ends: number[];
  sig: SigTokens;
}

/** Every token, trivia included, as objects (tests, small inputs, gap inspection). */
export function lex(src: string): Token[] {
  const { kinds, starts, ends } = scan(src, true);
  return kinds.map((kind, i) => ({ kind, start: starts[i]!, end: ends[i]! }));
}

/**
 * One pass over the text. With `keepTrivia` false (the parser's mode) only significant
 * tokens are stored: the text between two of them is exactly trivia, so nothing is lost.
 */
export function scan(src: string, keepTrivia = false): Scanned {
  const kinds: TokenKind[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const sig: SigTokens = { text: [], kind: [], start: [], end: [], line: [], col: [], firstOnLine: [], length: 0 };
  const n = src.length;
  let i = 0;
  let line = 0;
  let lineStart = 0;
  let sawNewline = true;
  let interpBudget = 2 * n + (1 << 16);

  const countLines = (from: number, to: number, trivia: boolean) => {
    for (let j = from; j < to; j++) {
      if (src.charCodeAt(j) === 10) {
        line++;
        lineStart = j + 1;
        if (trivia) sawNewline = true;
      }
    }
  };
  const push = (kind: TokenKind, start: number, end: number) => {
    if (kind === 'ws' || kind === 'line-comment' || kind === 'block-comment') {
      if (keepTrivia) {
        kinds.push(kind);
        starts.push(start);
        ends.push(end);
      }
      if (kind !== 'line-comment') countLines(start, end, true);
      return;
    }
    if (keepTrivia) {
      kinds.push(kind);
      starts.push(start);
      ends.push(end);
    }
    sig.text.push(src.slice(start, end));
    sig.kind.push(kind);
    sig.start.push(start);
    sig.end.push(end);
    sig.line.push(line);
    sig.col.push(start - lineStart);
    sig.firstOnLine.push(sawNewline);
    sawNewline = false;
    if (kind === 'string' || kind === 'doc-comment' || kind === 'mod-doc' || kind === 'raw-string' || kind === 'error')
      countLines(start, end, false);
  };

  const cp = (at: number) => {
    const c = src.charCodeAt(at);
    return c >= 0xd800 && c <= 0xdbff ? (src.codePointAt(at) ?? 0) : c || 0;
  };
  const width = (c: number) => (c > 0xffff ? 2 : 1);

  /** End of a `«…»` part starting at `at` (which is «), or -1 when unterminated. */
  const guillemetEnd = (at: number) => {
    const close = src.indexOf('»', at + 1);
    return close < 0 ? -1 : close + 1;
  };

  /** End of an identifier starting at `at`, or `at` when none starts there. */
  const identEnd = (at: number): number => {
    let j = at;
    for (;;) {
      const c = cp(j);
      if (c === 0xab /* « */) {
        const e = guillemetEnd(j);
        if (e < 0) return j === at ? at : j; // unterminated: not an identifier part
        j = e;
      } else if (isIdFirst(c)) {
        j += width(c);
        while (j < n) {
          const d = src.charCodeAt(j);
          if (d < 128) {
            if (!isIdRest(d)) break;
            j++;
            continue;
          }
          const e = cp(j);
          if (!isIdRest(e)) break;
          j += width(e);
        }
      } else {
        return j;
      }
      // A dot continues the name only before another identifier part.
      if (src.charCodeAt(j) === 46 && j + 1 < n) {
        const next = cp(j + 1);
        if (isIdFirst(next) || next === 0xab) {
          j++;
          continue;
        }
      }
      return j;
    }
  };

  /** End of a nested block comment starting at `at` (`/-`); -1 when unterminated. */
  const blockEnd = (at: number): number => {
    let depth = 1;
    let j = at + 2;
    while (j < n) {
      const c = src.charCodeAt(j);
      if (c === 47 /* / */ && src.charCodeAt(j + 1) === 45 /* - */) {
        depth++;
        j += 2;
      } else if (c === 45 && src.charCodeAt(j + 1) === 47) {
        depth--;
        j += 2;
        if (depth === 0) return j;
      } else {
        j++;
      }
    }
    return -1;
  };

  /** End of a plain string starting at `at` (the quote); -1 when unterminated. */
  const plainStringEnd = (at: number): number => {
    let j = at + 1;
    while (j < n) {
      const c = src.charCodeAt(j);
      if (c === 92 /* \ */) j += 2;
      else if (c === 34 /* " */) return j + 1;
      else j++;
    }
    return -1;
  };

  /**
   * End of an interpolated string starting at `at` (the quote), or -1 when it does not close.
   * `{ term }` parts may hold nested strings, to any depth: an explicit stack of brace depths
   * (one entry per open `{` part) instead of recursion, so nesting costs no call stack.
   * Every step draws on `interpBudget`, shared by the whole scan: a string that never closes
   * is scanned to the end of input, and many of them (`x!"{a"` repeated) would make the lexer
   * quadratic; once the budget (twice the input plus a constant, far above what real files
   * use) is spent, interpolated strings are read as plain strings, which is linear.
   */
  const interpStringEnd = (at: number): number => {
    // Open frames, innermost last: a positive entry is a `{ term }` part (its count of unclosed `{`),
    // 0 marks a string nested in a term. The outermost string has no entry.
    const braces: number[] = [];
    let inString = true;
    let j = at + 1;
    while (j < n) {
      if (--interpBudget < 0) return -1;
      const c = src.charCodeAt(j);
      if (inString) {
        if (c === 92 /* \ */) j += 2;
        else if (c === 34 /* " */) {
          j++;
          if (braces.length === 0) return j;
          braces.pop(); // the nested string's marker: back in the enclosing `{ term }`
          inString = false;
        } else if (c === 123 /* { */) {
          braces.push(1);
          inString = false;
          j++;
        } else j++;
        continue;
      }
      const top = braces.length - 1;
      if (c === 123) braces[top]!++;
      else if (c === 125 /* } */) {
        if (--braces[top]! === 0) {
          braces.pop();
          inString = true;
        }
      } else if (c === 34) {
        // A string inside the term: its own text until its quote (or its own `{` parts).
        inString = true;
        braces.push(0);
      }
      j++;
    }
    return -1;
  };

  const prevSigText = () => (sig.text.length > 0 ? sig.text[sig.text.length - 1]! : '');

  /** A character literal `'x'` / `'\n'` / `'\u2200'` at `at`; -1 if the text is not one. */
  const charEnd = (at: number): number => {
    let j = at + 1;
    if (j >= n) return -1;
    if (src.charCodeAt(j) === 92) {
      const e = src.charCodeAt(j + 1);
      if (e === 120 /* x */) j += 4;
      else if (e === 117 /* u */) j += 6;
      else j += 2;
    } else {
      const c = cp(j);
      if (c === 10) return -1;
      j += width(c);
    }
    return src.charCodeAt(j) === 39 ? j + 1 : -1;
  };

  const numberEnd = (at: number): number => {
    let j = at;
    const c0 = src.charCodeAt(j);
    const c1 = src.charCodeAt(j + 1) | 0x20;
    if (c0 === 48 && (c1 === 120 || c1 === 98 || c1 === 111)) {
      // 0x / 0b / 0o
      j += 2;
      while (j < n && (isHexDigit(src.charCodeAt(j)) || src.charCodeAt(j) === 95)) j++;
      return j;
    }
    while (j < n && (isDigit(src.charCodeAt(j)) || (src.charCodeAt(j) === 95 && isDigit(src.charCodeAt(j + 1))))) j++;
    if (src.charCodeAt(j) === 46 && isDigit(src.charCodeAt(j + 1))) {
      j++;
      while (j < n && isDigit(src.charCodeAt(j))) j++;
    }
    const e = src.charCodeAt(j);
    if (e === 101 || e === 69) {
      let k = j + 1;
      const s = src.charCodeAt(k);
      if (s === 43 || s === 45) k++;
      if (isDigit(src.charCodeAt(k))) {
        j = k;
        while (j < n && isDigit(src.charCodeAt(j))) j++;
      }
    }
    return j;
  };

  while (i < n) {
    const start = i;
    const c = src.charCodeAt(i);

    if (c === 32 || c === 10 || isWhitespace(c)) {
      // Inline: whitespace is a third of all tokens. Count lines here instead of re-scanning.
      for (; i < n; i++) {
        const d = src.charCodeAt(i);
        if (d === 10) {
          line++;
          lineStart = i + 1;
          sawNewline = true;
        } else if (d !== 32 && !isWhitespace(d)) break;
      }
      if (keepTrivia) {
        kinds.push('ws');
        starts.push(start);
        ends.push(i);
      }
      continue;
    }
    if (c === 45 /* - */ && src.charCodeAt(i + 1) === 45) {
      const nl = src.indexOf('\n', i);
      i = nl < 0 ? n : nl;
      push('line-comment', start, i);
      continue;
    }
    if (c === 47 /* / */ && src.charCodeAt(i + 1) === 45) {
      const third = src.charCodeAt(i + 2);
      const kind: TokenKind =
        third === 45 /* - */ && src.charCodeAt(i + 3) !== 47
          ? 'doc-comment'
          : third === 33 /* ! */
            ? 'mod-doc'
            : 'block-comment';
      const e = blockEnd(i);
      i = e < 0 ? n : e;
      push(e < 0 ? 'error' : kind, start, i);
      continue;
    }
    if (c === 34 /* " */) {
      const prev = prevSigText();
      const interp = prev.endsWith('!') || INTERPOLATING.has(prev);
      let e = interp ? interpStringEnd(i) : -1;
      if (e < 0) e = plainStringEnd(i);
      i = e < 0 ? n : e;
      push(e < 0 ? 'error' : 'string', start, i);
      continue;
    }
    if (c === 39 /* ' */ && src.charCodeAt(i + 1) !== 39) {
      const e = charEnd(i);
      if (e > 0) {
        i = e;
        push('char', start, i);
        continue;
      }
    }
    if (isDigit(c)) {
      i = numberEnd(i);
      push('number', start, i);
      continue;
    }
    // Adjacency by offset (no trivia between), which holds whether or not trivia tokens are kept.
    if (c === 46 /* . */ && sig.end.length > 0 && sig.end[sig.end.length - 1] === i) {
      const prevKind = sig.kind[sig.kind.length - 1]!;
      if (
        prevKind === 'ident' ||
        prevKind === 'field-idx' ||
        prevKind === 'field' ||
        CLOSERS_FOR_FIELD.has(sig.text[sig.text.length - 1]!)
      ) {
        if (isDigit(src.charCodeAt(i + 1))) {
          i++;
          while (i < n && isDigit(src.charCodeAt(i))) i++;
          push('field-idx', start, i);
          continue;
        }
        // A projection `(e).f` / `x.1.f`: Lean reads the field with `rawIdent`, which ignores the
        // token table, so `(a.set i v).set`, `(e).end`, `x.1.where` name fields, never keywords
        // [lean4 v4.28.0: src/Lean/Parser/Term.lean, `proj := trailing_parser checkNoWsBefore >> "." >>
        // checkNoWsBefore >> (fieldIdx <|> rawIdent)`]. One `field` token (dot included) keeps every
        // consumer's keyword checks from matching it.
        const f = cp(i + 1);
        if (isIdFirst(f) || f === 0xab) {
          const e = identEnd(i + 1);
          if (e > i + 1) {
            i = e;
            push('field', start, i);
            continue;
          }
        }
      }
    }
    if (c === 96 /* ` */) {
      const dbl = src.charCodeAt(i + 1) === 96 ? 1 : 0;
      const after = cp(i + 1 + dbl);
      if (isIdFirst(after) || after === 0xab) {
        const e = identEnd(i + 1 + dbl);
        if (e > i + 1 + dbl) {
          i = e;
          push('name-lit', start, i);
          continue;
        }
      }
    }
    if (c === 114 /* r */) {
      let j = i + 1;
      while (src.charCodeAt(j) === 35 /* # */) j++;
      if (src.charCodeAt(j) === 34) {
        const hashes = j - i - 1;
        const close = '"' + '#'.repeat(hashes);
        const e = src.indexOf(close, j + 1);
        i = e < 0 ? n : e + close.length;
        push(e < 0 ? 'error' : 'raw-string', start, i);
        continue;
      }
    }
    const c32 = cp(i);
    if (isIdFirst(c32) || c32 === 0xab) {
      const e = identEnd(i);
      if (e > i) {
        i = e;
        push('ident', start, i);
        continue;
      }
      if (c32 === 0xab) {
        // Unterminated «: the rest of the input (Lean reports the same error).
        i = n;
        push('error', start, i);
        continue;
      }
    }
    const candidates = c < 128 ? SYMBOLS_BY_LEAD[c] : undefined;
    let matched = 0;
    if (candidates)
      for (const s of candidates)
        if (src.startsWith(s, i)) {
          matched = s.length;
          break;
        }
    i += matched || width(c32);
    push('symbol', start, i);
  }
  sig.length = sig.text.length;
  return { kinds, starts, ends, sig };
}
