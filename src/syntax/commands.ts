/**
 * Splits a file into its header (module/prelude/imports) and body commands, following
 * how Lean's module parser finds them: each command starts where the previous one stopped and
 * ends where the grammar cannot continue, usually at a keyword that begins a command
 * [lean4 v4.28.0: src/Lean/Parser/Module.lean, `parseCommand`]. Commands never overlap and
 * keep file order; the text between them is trivia. A command the splitter does not
 * recognise is an opaque `other` span: nothing is ever dropped or reordered.
 */
import {
  CONTINUATION_KEYWORDS,
  DECL_KEYWORDS,
  EXPECTS_MORE,
  HARD_COMMAND_KEYWORDS,
  HASH_COMMANDS,
  IMPORT_MODIFIERS,
  IMPORT_OPTIONS,
  IN_PREFIX_COMMANDS,
  MODIFIERS,
  NOTATION_KEYWORDS,
  OPENER_SET,
  CLOSERS,
  SOFT_COMMAND_KEYWORDS,
} from './keywords.ts';
import { isCloser, isOpener, type HeadTokens, type SigTokens } from './significant.ts';
import { NONE } from './lexer.ts';

export type CommandKind =
  | 'declaration'
  | 'namespace'
  | 'section'
  | 'end'
  | 'mutual'
  | 'open'
  | 'set_option'
  | 'variable'
  | 'universe'
  | 'import'
  | 'module-doc'
  | 'hash'
  | 'attribute'
  | 'notation'
  | 'other';

export interface Span {
  start: number;
  end: number;
}

export interface Command extends Span {
  kind: CommandKind;
  /** Leading keyword after doc comment/attributes/modifiers: `theorem`, `open`, `#eval`, `noncomputable section`… */
  keyword: string;
  /** Significant-token range [sigStart, sigEnd) including any glued prefixes. */
  sigStart: number;
  sigEnd: number;
  /** Glued `open … in` / `set_option … in` prefixes, outermost first. */
  prefixes: readonly CommandPrefix[];
  /** Where the command proper (after prefixes) starts, in significant tokens. */
  ownSigStart: number;
}

/** An `open … in` / `set_option … in` (etc.) glued to the command after it. */
export interface CommandPrefix extends Span {
  keyword: string;
  sigStart: number;
  sigEnd: number;
}

export interface Header extends Span {
  sigEnd: number;
  module: boolean;
  prelude: boolean;
  imports: { module: string; modifiers: string[]; span: Span }[];
}

/** The `#word` at significant token k, if `#` is directly followed by an identifier. */
function hashWord(sig: HeadTokens, k: number): string | undefined {
  if (sig.text[k] !== '#' || k + 1 >= sig.length || sig.kind[k + 1] !== 'ident' || sig.start[k + 1] !== sig.end[k])
    return undefined;
  return '#' + sig.text[k + 1];
}

export function parseHeader(sig: HeadTokens): Header {
  const h: Header = { start: 0, end: 0, sigEnd: 0, module: false, prelude: false, imports: [] };
  let k = 0;
  if (sig.text[k] === 'module' && sig.kind[k] === 'ident') {
    h.module = true;
    k++;
  }
  if (sig.text[k] === 'prelude') {
    h.prelude = true;
    k++;
  }
  for (;;) {
    let j = k;
    while (j < sig.length && IMPORT_MODIFIERS.has(sig.text[j]!)) j++;
    if (sig.text[j] !== 'import') break;
    // The modifiers before `import`, then its options: a list only for an import.
    const mods = sig.text.slice(k, j);
    j++;
    while (j < sig.length && IMPORT_OPTIONS.has(sig.text[j]!)) mods.push(sig.text[j++]!);
    if (j < sig.length && sig.kind[j] === 'ident') {
      h.imports.push({ module: sig.text[j]!, modifiers: mods, span: { start: sig.start[k]!, end: sig.end[j]! } });
      j++;
    }
    k = j;
  }
  if (k > 0) {
    h.start = sig.start[0]!;
    h.end = sig.end[k - 1]!;
  }
  h.sigEnd = k;
  return h;
}

interface Scan {
  sig: SigTokens;
  /** Bracket depth before token `depthAt` (`depthBefore` moves it forward: the split only goes forward). */
  depth: number;
  depthAt: number;
  /** The last run of declaration prefixes measured (prefixEnd): [runStart, runEnd) ends at runEnd from any item in it. */
  runStart: number;
  runEnd: number;
}

/**
 * skipDeclPrefix from k, remembering the run: from any later item of the same run (every
 * modifier of `private private …` is asked in turn, at depth 0) the answer is the same end.
 * Without this a long run without a command keyword after it cost one scan per modifier
 * (quadratic in the run's length).
 */
function prefixEnd(s: Scan, k: number): number {
  if (k > s.runStart && k < s.runEnd) return s.runEnd;
  const end = skipDeclPrefix(s.sig, k);
  s.runStart = k;
  s.runEnd = end;
  return end;
}

/**
 * The bracket depth before token k, counted on from the last token asked about (k never goes
 * back): one pass over the tokens in all, and no array of depths per file.
 */
function depthBefore(s: Scan, k: number): number {
  const { sig } = s;
  let depth = s.depth;
  for (let j = s.depthAt; j < k; j++) {
    if (sig.kind[j] !== 'symbol') continue;
    const t = sig.text[j]!;
    if (OPENER_SET.has(t)) depth++;
    else if (CLOSERS.has(t) && depth > 0) depth--;
  }
  s.depth = depth;
  s.depthAt = k;
  return depth;
}

/** Skip doc comment, `@[…]` attribute lists and modifiers from k; returns the index of the keyword. */
export function skipDeclPrefix(sig: HeadTokens, k: number): number {
  let j = k;
  for (;;) {
    if (j >= sig.length) return j;
    if (sig.kind[j] === 'doc-comment') {
      j++;
      continue;
    }
    if (sig.text[j] === '@[') {
      let depth = 0;
      for (; j < sig.length; j++) {
        if (isOpener(sig, j)) depth++;
        else if (isCloser(sig, j) && --depth === 0) {
          j++;
          break;
        }
      }
      continue;
    }
    if (sig.kind[j] === 'ident' && MODIFIERS.has(sig.text[j]!)) {
      j++;
      // `scoped[NS] notation …` (Mathlib): skip the bracketed namespace too.
      if (sig.text[j - 1] === 'scoped' && sig.text[j] === '[' && sig.start[j] === sig.end[j - 1]) {
        while (j < sig.length && sig.text[j] !== ']') j++;
        j++;
      }
      continue;
    }
    return j;
  }
}

/** The word that decides what a command starting at k is (after prefixes), or undefined. */
function leadWord(sig: SigTokens, k: number): string | undefined {
  const hw = hashWord(sig, k);
  if (hw) return hw;
  return sig.kind[k] === 'ident' || sig.kind[k] === 'symbol' ? sig.text[k] : undefined;
}

/** Symbols after which an expression must continue (infix/prefix operators, separators, openers). */
const CONTINUING_SYMBOLS = new Set([
  ':=',
  ':',
  ',',
  '=',
  '≠',
  '<',
  '>',
  '≤',
  '≥',
  '+',
  '-',
  '*',
  '/',
  '^',
  '∧',
  '∨',
  '↔',
  '→',
  '->',
  '←',
  '<-',
  '∣',
  '∈',
  '∉',
  '⊆',
  '⊂',
  '∪',
  '∩',
  '•',
  '∘',
  '×',
  '|>',
  '<|',
  '$',
  '=>',
  '↦',
  '⊢',
  '<;>',
  '·',
  '∀',
  '∃',
  '∃!',
  '¬',
  'λ',
  '∑',
  '∏',
  '@',
  '.',
  '..',
  '%',
  '&&',
  '||',
  '==',
  '!=',
  '++',
  '<|>',
  '∫',
  '⨆',
  '⨅',
  '⋃',
  '⋂',
  '≃',
  '≅',
  '≡',
  '∼',
  '≈',
  '⊓',
  '⊔',
  '\\',
  '∆',
]);

function endsExpression(sig: SigTokens, k: number): boolean {
  const kind = sig.kind[k];
  const t = sig.text[k]!;
  if (kind === 'ident') return !EXPECTS_MORE.has(t);
  if (kind === 'symbol') return !OPENER_SET.has(t) && !CONTINUING_SYMBOLS.has(t);
  return kind !== 'doc-comment' && kind !== 'mod-doc';
}

interface Current {
  start: number;
  col: number;
  /** A `by` block whose tactics sit at or left of the command's column: column-0 words are tactics. */
  lowTactics: boolean;
  isDecl: boolean;
  /** The command may prefix another with `in` (`open`, `set_option`, `include`…). */
  inPrefix: boolean;
  /** A notation/syntax/macro command still before its `=>` or `:=` (its pattern may wrap to column 0). */
  openNotation: boolean;
  /** The command's classification (`classify`) when it opened, and where its keyword was then. */
  kind: CommandKind;
  keyword: string;
  kw: number;
  /** The last token of its keyword: the split goes on after it. */
  resumeAt: number;
}

/** Does a command start at significant token k (bracket depth 0)? */
function startsCommand(s: Scan, k: number, cur: Current | undefined): boolean {
  const { sig } = s;
  const kind = sig.kind[k];
  const text = sig.text[k]!;
  if (kind === 'mod-doc') return true;
  // An unterminated comment (an `error` token to the end of the text) on a line of its own is
  // its own opaque span, never the tail of the previous command's body, which an edit would
  // drop with it (theorem2sorry lost a trailing unterminated `/--` that way).
  if (kind === 'error' && text.startsWith('/-') && sig.firstOnLine[k] === true) return true;
  if (kind === 'doc-comment' || text === '@[' || (kind === 'ident' && MODIFIERS.has(text))) return prefixStarts(s, k);
  const hw = hashWord(sig, k);
  if (hw)
    return (
      sig.firstOnLine[k] === true && (HASH_COMMANDS.has(hw) || sig.col[k] === 0) && (!cur || sig.col[k]! <= cur.col)
    );
  if (kind !== 'ident') return false;
  if (HARD_COMMAND_KEYWORDS.has(text)) return keywordStarts(sig, k, text);
  if (!sig.firstOnLine[k]) return false;
  if (SOFT_COMMAND_KEYWORDS.has(text)) {
    return !cur || (sig.col[k]! <= cur.col && !cur.lowTactics);
  }
  return unknownWordStarts(sig, k, text, cur);
}

/** A doc comment, `@[` or modifier at k: does it begin a command (the word after the prefixes decides)? */
function prefixStarts(s: Scan, k: number): boolean {
  const { sig } = s;
  const kind = sig.kind[k];
  const j = prefixEnd(s, k);
  // A doc comment with nothing after it (terminated or not) documents nothing in the previous
  // command: its own span, so an edit of that command's body never drops it.
  if (j >= sig.length && kind === 'doc-comment' && sig.firstOnLine[k] === true) return true;
  const w = leadWord(sig, j);
  if (w === undefined) return false;
  if (HARD_COMMAND_KEYWORDS.has(w) || HASH_COMMANDS.has(w) || w === 'section' || w === 'namespace') {
    // `private`/`protected` etc. directly before a field name or constructor belong to the declaration.
    return true;
  }
  // Doc comment before an unknown column-0 command (for example compfiles' `problem`).
  return (
    kind === 'doc-comment' &&
    sig.firstOnLine[j] === true &&
    sig.col[j] === 0 &&
    sig.kind[j] === 'ident' &&
    !CONTINUATION_KEYWORDS.has(sig.text[j]!) &&
    sig.text[j + 1] !== ':' &&
    (k === 0 || endsExpression(sig, k - 1))
  );
}

/** A command keyword at k (depth 0): does it begin a command here? */
function keywordStarts(sig: SigTokens, k: number, text: string): boolean {
  const prev = k > 0 ? sig.text[k - 1] : undefined;
  if (text === 'instance' && prev === 'deriving') return false;
  if ((text === 'inductive' || text === 'abbrev') && prev === 'class') return false;
  // A declaration keyword starts a declaration wherever it stands at depth 0: it is a token that
  // cannot continue a term or tactic, so Lean ends the previous command there
  // (`theorem t : True := trivial theorem u : True := trivial` is two theorems). Other command
  // words start one mid-line only right after an `… in` prefix (`open Foo in theorem …`).
  if (!sig.firstOnLine[k] && prev !== 'in' && !DECL_KEYWORDS.has(text)) return false;
  if (text === 'deriving') return sig.text[k + 1] === 'instance';
  if (text === 'inductive' && prev === 'class') return false;
  if (text === 'end') return sig.firstOnLine[k] === true;
  return true;
}

/** An unknown word at column 0 after a complete command (or after an `… in` prefix): some command we do not know. */
function unknownWordStarts(sig: SigTokens, k: number, text: string, cur: Current | undefined): boolean {
  if (sig.col[k] !== 0 || CONTINUATION_KEYWORDS.has(text)) return false;
  if (!cur) return true;
  if (cur.inPrefix && sig.text[k - 1] === 'in') return true;
  return !cur.lowTactics && !cur.openNotation && endsExpression(sig, k - 1);
}

/** `j`: where the keyword after k's prefixes is (prefixEnd when a Scan is at hand: a long run is measured once). */
export function classify(
  sig: HeadTokens,
  k: number,
  j = skipDeclPrefix(sig, k),
): { kind: CommandKind; keyword: string } {
  if (sig.kind[k] === 'mod-doc') return { kind: 'module-doc', keyword: '/-!' };
  const hw = hashWord(sig, j);
  if (hw) return { kind: 'hash', keyword: hw };
  const w = sig.text[j] ?? '';
  if (w === 'class' && (sig.text[j + 1] === 'inductive' || sig.text[j + 1] === 'abbrev'))
    return { kind: 'declaration', keyword: `class ${sig.text[j + 1]}` };
  if (DECL_KEYWORDS.has(w)) return { kind: 'declaration', keyword: w };
  if (w === 'section')
    return {
      kind: 'section',
      keyword:
        j > k
          ? `${sig.text
              .slice(k, j)
              .filter((x) => !x.startsWith('/-') && !x.startsWith('@['))
              .join(' ')} section`.trim()
          : 'section',
    };
  if (
    w === 'namespace' ||
    w === 'end' ||
    w === 'mutual' ||
    w === 'open' ||
    w === 'set_option' ||
    w === 'variable' ||
    w === 'universe' ||
    w === 'import' ||
    w === 'attribute'
  ) {
    return { kind: w, keyword: w };
  }
  if (NOTATION_KEYWORDS.has(w)) return { kind: 'notation', keyword: w };
  return { kind: 'other', keyword: w };
}

/** Split the body (after the header) into commands. */
export function splitCommands(sig: SigTokens, header: Header): Command[] {
  const s: Scan = { sig, depth: 0, depthAt: 0, runStart: -1, runEnd: -1 };
  const raw: Command[] = [];
  let cur: Current | undefined;
  // Depth is measured relative to the current command so one unbalanced bracket cannot swallow the file.
  let base = 0;
  for (let k = header.sigEnd; k < sig.length; k++) {
    const absolute = depthBefore(s, k);
    const depth = absolute - base;
    if (cur === undefined || (depth <= 0 && startsCommand(s, k, cur))) {
      if (cur) pushCommand(s, raw, cur, k);
      base = absolute;
      cur = openCommand(s, k);
      // Continue after the keyword, so `private theorem` or `/-- doc -/ def` stay one command.
      k = cur.resumeAt;
      continue;
    }
    // Unbalanced closer: re-anchor.
    if (depth < 0) base = absolute;
    noteToken(sig, k, depth, cur);
  }
  if (cur) pushCommand(s, raw, cur, sig.length);
  return gluePrefixes(sig, raw);
}

/** The command `cur` opened, of significant tokens [cur.start, endK), classified. */
function pushCommand(s: Scan, raw: Command[], cur: Current, endK: number): void {
  const { sig } = s;
  const from = cur.start;
  if (endK <= from) return;
  // Its prefixes are measured again (the remembered run may have moved since it opened, and
  // prefixEnd's memory is part of how the split goes on); classified again only if they end elsewhere.
  const kw = prefixEnd(s, from);
  const c = kw === cur.kw ? cur : classify(sig, from, kw);
  raw.push({
    kind: c.kind,
    keyword: c.keyword,
    start: sig.start[from]!,
    end: sig.end[endK - 1]!,
    sigStart: from,
    sigEnd: endK,
    prefixes: NONE,
    ownSigStart: from,
  });
}

/** The state of a command starting at k, its classification, and the last token of its keyword (the split goes on after it). */
function openCommand(s: Scan, k: number): Current {
  const { sig } = s;
  const kw = prefixEnd(s, k);
  const c = classify(sig, k, kw);
  const twoWords = c.keyword.startsWith('class ');
  return {
    start: k,
    col: sig.col[k]!,
    lowTactics: false,
    isDecl: c.kind === 'declaration',
    inPrefix: IN_PREFIX_COMMANDS.has(c.keyword),
    openNotation: c.kind === 'notation',
    kind: c.kind,
    keyword: c.keyword,
    kw,
    resumeAt: kw > k && kw < sig.length ? (twoWords ? kw + 1 : kw) : twoWords ? k + 1 : k,
  };
}

/** What a token inside the current command tells about the lines after it. */
function noteToken(sig: SigTokens, k: number, depth: number, cur: Current): void {
  const t = sig.text[k];
  if (cur.openNotation && depth === 0 && (t === '=>' || t === ':=')) cur.openNotation = false;
  // `by`, `do` or `:=` ending a line, with the block below at or left of the command's column:
  // column-0 words are tactics / do-elements / term lines of this command, not new commands.
  if (
    (t === 'by' || t === 'do' || t === ':=') &&
    depth === 0 &&
    k + 1 < sig.length &&
    sig.firstOnLine[k + 1] &&
    sig.col[k + 1]! <= cur.col
  ) {
    cur.lowTactics = true;
  }
}

/** Fold `open … in` / `set_option … in` (etc.) commands into the command they prefix (in place: `cmds` is the split's own). */
function gluePrefixes(sig: SigTokens, cmds: Command[]): Command[] {
  let kept = 0;
  let pending: CommandPrefix[] | undefined;
  for (const c of cmds) {
    const isPrefix = IN_PREFIX_COMMANDS.has(c.keyword) && sig.text[c.sigEnd - 1] === 'in';
    if (isPrefix) {
      (pending ??= []).push({ start: c.start, end: c.end, keyword: c.keyword, sigStart: c.sigStart, sigEnd: c.sigEnd });
      continue;
    }
    if (pending) {
      c.prefixes = pending;
      c.start = pending[0]!.start;
      c.sigStart = pending[0]!.sigStart;
      pending = undefined;
    }
    cmds[kept++] = c;
  }
  // Set only when some were glued: a store to an array's length is a runtime call even when it changes nothing.
  if (kept !== cmds.length) cmds.length = kept;
  // Dangling prefixes at end of file stay as their own commands.
  for (const p of pending ?? NONE)
    cmds.push({
      kind: p.keyword === 'open' ? 'open' : 'other',
      keyword: p.keyword,
      start: p.start,
      end: p.end,
      sigStart: p.sigStart,
      sigEnd: p.sigEnd,
      prefixes: NONE,
      ownSigStart: p.sigStart,
    });
  return cmds;
}
