/**
 * A lossless lexer for Lean 4 source: every UTF-16 unit of the input belongs to exactly
 * one token, trivia included, so `tokens.map(text).join('') === src` for every input.
 * It never throws: unterminated strings/comments become `error` tokens to the end of
 * input, unknown characters become one-character symbols. Lean's token table is
 * extensible, so keywords are left as `ident` tokens and classified by the consumers.
 * Reference: [lean4 v4.28.0: src/Lean/Parser/Basic.lean, `tokenFnAux`].
 */
import { isDigit, isHexDigit, isIdFirst, isIdRest, isWhitespace } from './chars.ts';
import type { HeadTokens, SigTokens } from './significant.ts';

/**
 * The empty list, shared and frozen, for the syntax layer's placeholders and results that hold
 * nothing (a list made per call costs an allocation, and a first `push` room for 17): a scan's
 * all-token lists without trivia, a command's prefixes when it has none, a declaration's opens
 * until the source model fills them in. Here, with the scan that uses it most: the syntax layer
 * imports nothing outside it, so it has its own; the rest of src/ shares util/arrays.ts `NONE`.
 */
export const NONE: readonly never[] = Object.freeze([]);

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
  return new Lexer(src, keepTrivia, true).run();
}

/** The significant tokens of a text read only as far as a reader asks (`partialScan`). */
export interface PartialScan {
  /** The significant tokens read so far, without their layout: always those at the start of `scan(src).sig`, none cut short. */
  readonly sig: HeadTokens;
  /** Reads on until `sig` holds at least `count` tokens or the text ends; true when it has ended (`sig` is whole). */
  readTo(count: number): boolean;
}

/**
 * A scan of the significant tokens that stops where the reader stops asking: what needs only the
 * first tokens of a text (`commandHead`, `headerEnd`) lexes no further than them, and asking for
 * more goes on from where the scan stopped, so no token is read twice (linear however the count grows).
 */
export function partialScan(src: string): PartialScan {
  return new Lexer(src, false, false);
}

// ---- Where a token ends: pure functions of the text, each for one token shape. ----

/** The code point at `at` (0 past the end). */
function cp(src: string, at: number): number {
  const c = src.charCodeAt(at);
  return c >= 0xd800 && c <= 0xdbff ? (src.codePointAt(at) ?? 0) : c || 0;
}
const width = (c: number) => (c > 0xffff ? 2 : 1);

/** Whether an identifier part (a letter-like first character or a `«`) starts with code point `c`. */
const startsIdent = (c: number) => isIdFirst(c) || c === 0xab; /* « */

/** End of the run of identifier characters after a first one at `at`. */
function idRestEnd(src: string, at: number): number {
  const n = src.length;
  let j = at + width(cp(src, at));
  while (j < n) {
    const d = src.charCodeAt(j);
    if (d < 128) {
      if (!isIdRest(d)) break;
      j++;
      continue;
    }
    const e = cp(src, j);
    if (!isIdRest(e)) break;
    j += width(e);
  }
  return j;
}

/** End of an identifier starting at `at`, or `at` when none starts there (an unterminated `«`). */
function identEnd(src: string, at: number): number {
  let j = at;
  for (;;) {
    const c = cp(src, j);
    if (c === 0xab /* « */) {
      const close = src.indexOf('»', j + 1);
      if (close < 0) return j; // unterminated: not an identifier part
      j = close + 1;
    } else if (isIdFirst(c)) j = idRestEnd(src, j);
    else return j;
    // A dot continues the name only before another identifier part.
    if (src.charCodeAt(j) !== 46 || j + 1 >= src.length || !startsIdent(cp(src, j + 1))) return j;
    j++;
  }
}

/** End of a nested block comment starting at `at` (`/-`); -1 when unterminated. */
function blockEnd(src: string, at: number): number {
  const n = src.length;
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
}

/** The kind of the comment opening at `at` (`/-`): doc comment `/--`, module doc `/-!`, or plain. */
function blockKind(src: string, at: number): TokenKind {
  const third = src.charCodeAt(at + 2);
  if (third === 45 /* - */ && src.charCodeAt(at + 3) !== 47) return 'doc-comment';
  return third === 33 /* ! */ ? 'mod-doc' : 'block-comment';
}

/** End of a plain string starting at `at` (the quote); -1 when unterminated. */
function plainStringEnd(src: string, at: number): number {
  const n = src.length;
  let j = at + 1;
  while (j < n) {
    const c = src.charCodeAt(j);
    if (c === 92 /* \ */) j += 2;
    else if (c === 34 /* " */) return j + 1;
    else j++;
  }
  return -1;
}

/** What is left of the steps interpolated strings may take, shared by one whole scan. */
interface Budget {
  left: number;
}

/**
 * End of an interpolated string starting at `at` (the quote), or -1 when it does not close.
 * `{ term }` parts may hold nested strings, to any depth: an explicit stack of brace depths
 * (one entry per open `{` part) instead of recursion, so nesting costs no call stack.
 * Every step draws on `budget`, shared by the whole scan: a string that never closes
 * is scanned to the end of input, and many of them (`x!"{a"` repeated) would make the lexer
 * quadratic; once the budget (twice the input plus a constant, far above what real files
 * use) is spent, interpolated strings are read as plain strings, which is linear.
 */
function interpStringEnd(src: string, at: number, budget: Budget): number {
  // Open frames, innermost last: a positive entry is a `{ term }` part (its count of unclosed `{`),
  // 0 marks a string nested in a term. The outermost string has no entry.
  const braces: number[] = [];
  const n = src.length;
  let inString = true;
  let j = at + 1;
  while (j < n) {
    if (--budget.left < 0) return -1;
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
    inString = termStep(braces, c);
    j++;
  }
  return -1;
}

/** One character `c` inside a `{ term }` part (`braces` non-empty): whether it enters a string. */
function termStep(braces: number[], c: number): boolean {
  const top = braces.length - 1;
  if (c === 123 /* { */) braces[top]!++;
  else if (c === 125 /* } */) {
    if (--braces[top]! === 0) {
      braces.pop();
      return true;
    }
  } else if (c === 34 /* " */) {
    // A string inside the term: its own text until its quote (or its own `{` parts).
    braces.push(0);
    return true;
  }
  return false;
}

/** A character literal `'x'` / `'\n'` / `'\u2200'` at `at`; -1 if the text is not one. */
function charEnd(src: string, at: number): number {
  let j = at + 1;
  if (j >= src.length) return -1;
  if (src.charCodeAt(j) === 92) {
    const e = src.charCodeAt(j + 1);
    if (e === 120 /* x */) j += 4;
    else if (e === 117 /* u */) j += 6;
    else j += 2;
  } else {
    const c = cp(src, j);
    if (c === 10) return -1;
    j += width(c);
  }
  return src.charCodeAt(j) === 39 ? j + 1 : -1;
}

/** End of a number literal at `at`: `0x…`/`0b…`/`0o…`, or decimal with `_` separators, fraction, exponent. */
function numberEnd(src: string, at: number): number {
  const n = src.length;
  let j = at;
  const c1 = src.charCodeAt(j + 1) | 0x20;
  if (src.charCodeAt(j) === 48 && (c1 === 120 || c1 === 98 || c1 === 111)) {
    // 0x / 0b / 0o
    j += 2;
    while (j < n && (isHexDigit(src.charCodeAt(j)) || src.charCodeAt(j) === 95)) j++;
    return j;
  }
  while (j < n && (isDigit(src.charCodeAt(j)) || (src.charCodeAt(j) === 95 && isDigit(src.charCodeAt(j + 1))))) j++;
  if (src.charCodeAt(j) === 46 && isDigit(src.charCodeAt(j + 1))) j = digitsEnd(src, j + 1);
  const e = src.charCodeAt(j);
  if (e === 101 || e === 69 /* e E */) {
    const s = src.charCodeAt(j + 1);
    const k = s === 43 || s === 45 ? j + 2 : j + 1;
    if (isDigit(src.charCodeAt(k))) j = digitsEnd(src, k);
  }
  return j;
}

/** End of the run of decimal digits from `at`. */
function digitsEnd(src: string, at: number): number {
  let j = at;
  while (j < src.length && isDigit(src.charCodeAt(j))) j++;
  return j;
}

/** End of the symbol at `at`: the longest multi-unit symbol there, else one character. */
function symbolEnd(src: string, at: number, c: number): number {
  const candidates = c < 128 ? SYMBOLS_BY_LEAD[c] : undefined;
  if (candidates) for (const s of candidates) if (src.startsWith(s, at)) return at + s.length;
  return at + width(cp(src, at));
}

/**
 * The scan's state and its scanners: `step` looks at the character at `i` and hands over
 * to the one scanner for the token starting there, which records it and moves `i` past it.
 * A scanner that finds no token of its shape (`'` not closing a char, `.` not a field, `r`
 * not a raw string…) answers false and the dispatch goes on to the next one.
 */
class Lexer implements Budget {
  // All tokens are kept only with keepTrivia: the parser's scans share one empty list each instead.
  readonly kinds: TokenKind[];
  readonly starts: number[];
  readonly ends: number[];
  readonly sig: SigTokens;
  readonly n: number;
  /** The interpolated strings' budget (`Budget`): the lexer is its own, one object less per scan. */
  left: number;
  i = 0;
  line = 0;
  lineStart = 0;
  sawNewline = true;

  constructor(
    readonly src: string,
    readonly keepTrivia: boolean,
    /** Whether each token's line, column and first-on-line are recorded (a partial scan's readers read none). */
    readonly layout: boolean,
  ) {
    this.n = src.length;
    this.left = 2 * src.length + (1 << 16);
    // The all-token lists of a scan without trivia (`Scanned`: "only filled with keepTrivia") are the shared empty one.
    this.kinds = keepTrivia ? [] : (NONE as never[]);
    this.starts = keepTrivia ? [] : (NONE as never[]);
    this.ends = keepTrivia ? [] : (NONE as never[]);
    // Without layout its lists stay the shared empty one (`PartialScan.sig` is typed without them).
    const none = NONE as never[];
    this.sig = {
      text: [],
      kind: [],
      start: [],
      end: [],
      line: layout ? [] : none,
      col: layout ? [] : none,
      firstOnLine: layout ? [] : none,
      length: 0,
    };
  }

  run(): Scanned {
    while (this.i < this.n) this.step(this.src.charCodeAt(this.i));
    this.sig.length = this.sig.text.length;
    return { kinds: this.kinds, starts: this.starts, ends: this.ends, sig: this.sig };
  }

  /** `PartialScan.readTo`: the scan's state (position, line, budget) carries over, so the tokens are `run`'s. */
  readTo(count: number): boolean {
    const { text } = this.sig;
    while (this.i < this.n && text.length < count) this.step(this.src.charCodeAt(this.i));
    this.sig.length = text.length;
    return this.i >= this.n;
  }

  /** One token from `i`, whose first UTF-16 unit is `c`. */
  step(c: number): void {
    if (c === 32 || c === 10 || isWhitespace(c)) return this.whitespace();
    const next = this.src.charCodeAt(this.i + 1);
    if (c === 45 /* - */ && next === 45) return this.lineComment();
    if (c === 47 /* / */ && next === 45) return this.blockComment();
    if (c === 34 /* " */) return this.string();
    if (isDigit(c)) return this.token('number', numberEnd(this.src, this.i));
    if (c === 39 /* ' */ && next !== 39 && this.char()) return;
    if (c === 46 /* . */ && this.field()) return;
    if (c === 96 /* ` */ && this.nameLiteral()) return;
    if (c === 114 /* r */ && this.rawString()) return;
    if (this.identifier()) return;
    this.token('symbol', symbolEnd(this.src, this.i, c));
  }

  // ---- Recording a token and moving past it. ----

  /** A significant token from `i` to `end`, with its line, column and whether it opens its line. */
  token(kind: TokenKind, end: number): void {
    const { sig, i: start } = this;
    if (this.keepTrivia) {
      this.kinds.push(kind);
      this.starts.push(start);
      this.ends.push(end);
    }
    sig.text.push(this.src.slice(start, end));
    sig.kind.push(kind);
    sig.start.push(start);
    sig.end.push(end);
    if (this.layout) {
      sig.line.push(this.line);
      sig.col.push(start - this.lineStart);
      sig.firstOnLine.push(this.sawNewline);
    }
    this.sawNewline = false;
    // The kinds that may span lines (a trailing newline of a line comment is not part of it).
    if (kind === 'string' || kind === 'doc-comment' || kind === 'mod-doc' || kind === 'raw-string' || kind === 'error')
      this.countLines(start, end, false);
    this.i = end;
  }

  /** A comment from `i` to `end`: trivia, kept only with `keepTrivia`. */
  comment(kind: 'line-comment' | 'block-comment', end: number): void {
    if (this.keepTrivia) this.keep(kind, this.i, end);
    if (kind === 'block-comment') this.countLines(this.i, end, true);
    this.i = end;
  }

  keep(kind: TokenKind, start: number, end: number): void {
    this.kinds.push(kind);
    this.starts.push(start);
    this.ends.push(end);
  }

  /** Advance the line count over newlines in [from, to); a newline in trivia makes the next token first on its line. */
  countLines(from: number, to: number, trivia: boolean): void {
    const { src } = this;
    for (let j = from; j < to; j++) {
      if (src.charCodeAt(j) === 10) {
        this.line++;
        this.lineStart = j + 1;
        if (trivia) this.sawNewline = true;
      }
    }
  }

  // ---- The scanners, in the order `step` tries them. ----

  /** Whitespace is a third of all tokens: lines are counted in the same loop instead of a second pass. */
  whitespace(): void {
    const { src, n } = this;
    const start = this.i;
    let i = start;
    for (; i < n; i++) {
      const d = src.charCodeAt(i);
      if (d === 10) {
        this.line++;
        this.lineStart = i + 1;
        this.sawNewline = true;
      } else if (d !== 32 && !isWhitespace(d)) break;
    }
    if (this.keepTrivia) {
      this.kinds.push('ws');
      this.starts.push(start);
      this.ends.push(i);
    }
    this.i = i;
  }

  /** `--` to the end of the line (the newline is whitespace). */
  lineComment(): void {
    const nl = this.src.indexOf('\n', this.i);
    this.comment('line-comment', nl < 0 ? this.n : nl);
  }

  /** `/- … -/` nested; doc comments and module docs are significant tokens, an unterminated one an error. */
  blockComment(): void {
    const kind = blockKind(this.src, this.i);
    const e = blockEnd(this.src, this.i);
    if (e < 0) this.token('error', this.n);
    else if (kind === 'block-comment') this.comment(kind, e);
    else this.token(kind, e);
  }

  /** A string; interpolated (`{ term }` parts) after `…!` or a macro that takes one [lean4: interpolatedStr]. */
  string(): void {
    const { sig, src, i } = this;
    const prev = sig.text.length > 0 ? sig.text[sig.text.length - 1]! : '';
    const interp = prev.endsWith('!') || INTERPOLATING.has(prev);
    let e = interp ? interpStringEnd(src, i, this) : -1;
    if (e < 0) e = plainStringEnd(src, i);
    if (e < 0) this.token('error', this.n);
    else this.token('string', e);
  }

  /** `'x'`; false for a `'` that does not close as a character literal. */
  char(): boolean {
    const e = charEnd(this.src, this.i);
    if (e < 0) return false;
    this.token('char', e);
    return true;
  }

  /**
   * A projection `(e).f` / `x.1.f` / `x.2`, right after (no trivia between, by offset, which holds whether
   * or not trivia tokens are kept) an identifier, a field or a closing bracket. Lean reads the field with
   * `rawIdent`, which ignores the token table, so `(a.set i v).set`, `(e).end`, `x.1.where` name fields,
   * never keywords [lean4 v4.28.0: src/Lean/Parser/Term.lean, `proj := trailing_parser checkNoWsBefore >> "."
   * >> checkNoWsBefore >> (fieldIdx <|> rawIdent)`]. One `field` token (dot included) keeps every consumer's
   * keyword checks from matching it.
   */
  field(): boolean {
    const { sig, src, i } = this;
    const last = sig.end.length - 1;
    if (last < 0 || sig.end[last] !== i) return false;
    const prevKind = sig.kind[last]!;
    const projectable =
      prevKind === 'ident' ||
      prevKind === 'field-idx' ||
      prevKind === 'field' ||
      CLOSERS_FOR_FIELD.has(sig.text[last]!);
    if (!projectable) return false;
    if (isDigit(src.charCodeAt(i + 1))) {
      this.token('field-idx', digitsEnd(src, i + 1));
      return true;
    }
    if (!startsIdent(cp(src, i + 1))) return false;
    const e = identEnd(src, i + 1);
    if (e <= i + 1) return false;
    this.token('field', e);
    return true;
  }

  /** A name literal `` `x.y `` or ``` ``x ```; false when no identifier follows the backquotes. */
  nameLiteral(): boolean {
    const { src, i } = this;
    const from = src.charCodeAt(i + 1) === 96 ? i + 2 : i + 1;
    if (!startsIdent(cp(src, from))) return false;
    const e = identEnd(src, from);
    if (e <= from) return false;
    this.token('name-lit', e);
    return true;
  }

  /** `r"…"`, `r#"…"#` (any number of `#`); false when `r` is not followed by one (an identifier then). */
  rawString(): boolean {
    const { src, i } = this;
    let j = i + 1;
    while (src.charCodeAt(j) === 35 /* # */) j++;
    if (src.charCodeAt(j) !== 34) return false;
    const close = '"' + '#'.repeat(j - i - 1);
    const e = src.indexOf(close, j + 1);
    if (e < 0) this.token('error', this.n);
    else this.token('raw-string', e + close.length);
    return true;
  }

  /** A (dotted, possibly «guillemeted») identifier; an unterminated `«` is an error to the end of input, as in Lean. */
  identifier(): boolean {
    const { src, i } = this;
    const c = cp(src, i);
    if (!startsIdent(c)) return false;
    const e = identEnd(src, i);
    if (e > i) this.token('ident', e);
    else this.token('error', this.n);
    return true;
  }
}
