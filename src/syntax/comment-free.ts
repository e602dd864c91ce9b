/**
 * A command's text without what Lean skips as blank space between lines: the comments that end a line, the lines
 * that hold nothing else, blank lines and the blank space ending a line. Two texts with the same comment-free form
 * hold the same tokens at the same columns, each line keeping its own tokens, so Lean parses them alike: its parser
 * reads comments as whitespace [lean4 src/Lean/Parser/Basic.lean, `whitespace`, `finishCommentBlock`; read in the
 * versions the code index stores, which refuse a tab in blank space, and the newer ones a lone carriage return], and
 * its layout checks compare columns and whether a line break comes between two tokens (`checkColGe`,
 * `checkLinebreakBefore`), never how many. What differs is the lines a token sits on: `lineOf` and `from` map them.
 *
 * Conservative by construction (backend/comment-memo.ts answers a text from another's outcome only through this):
 * - a comment followed by a token on its own last line is kept (removing it would move that token's column), as is
 *   everything after the last token (where Lean's end-of-input position lies), and doc comments (`/--`, `/-!`:
 *   syntax, not blank space);
 * - a text with a tab, a carriage return (Lean refuses them outside comments: `whitespace`) or another control
 *   character of blank space (not blank space to Lean: `Char.isWhitespace`), an unterminated token,
 *   a `#` command, an attribute outside SOURCE_BLIND_ATTRIBUTES, an option outside SOURCE_BLIND_OPTIONS or a
 *   CODE_RUNNING_WORDS word has no comment-free form: code run at elaboration may read the source itself.
 */
import { CODE_RUNNING_WORDS } from './keywords.ts';
import { scan, type Scanned } from './lexer.ts';
import { codePointCount, LineIndex } from './positions.ts';

export interface CommentFree {
  readonly text: string;
  /** Whether `text` differs from the original. */
  readonly changed: boolean;
  /** Per line of the original (index: line − 1): its line in `text`, or 0 when the form drops it. */
  readonly lineOf: Int32Array;
  /** Per line of the original: how many of its code points `text` keeps (a prefix of it). */
  readonly keep: Int32Array;
  /** Per line of `text` (index: line − 1): the original's line. */
  readonly from: Int32Array;
  /** The text of each comment the form drops. */
  readonly removed: readonly string[];
}

/**
 * Options a comment-free text may set: limits and implicit-variable rules, none of which prints a position or reads
 * the source. Linters (some read the source text) and traces (some print positions) are not among them.
 */
const SOURCE_BLIND_OPTIONS = new Set([
  'maxHeartbeats',
  'maxRecDepth',
  'synthInstance.maxHeartbeats',
  'synthInstance.maxSize',
  'autoImplicit',
  'relaxedAutoImplicit',
]);

/** Attributes a comment-free text may carry: they tag a declaration for existing procedures and run none of its own. */
const SOURCE_BLIND_ATTRIBUTES = new Set(['simp', 'reducible', 'irreducible', 'instance', 'local', 'scoped', 'inline']);

/** Lean refuses a tab or a lone carriage return as blank space, and takes no other control character for it. */
const REFUSED_BLANKS = /[\t\r\f\v]/;

/**
 * What a form can change, or refuse: a comment, blank space ending a line, a blank line, a line break first, a blank
 * Lean refuses. A text with none of these is its own form (no span can be cut from it).
 */
const MAY_CHANGE = /--|\/-| \n|\n\n|^\n|[\t\r\f\v]/;

/**
 * `src` as its own form when it holds nothing a form changes (MAY_CHANGE), without reading its tokens: whether it
 * runs code of its own is not asked (a caller answers such a text only from a text with the same form, which was
 * either this very text or one read whole by `commentFree`, with the same tokens); else `commentFree(src)`.
 */
export function commentFreeForm(src: string): CommentFree | undefined {
  return MAY_CHANGE.test(src) ? commentFree(src) : ownForm(src);
}

/** A text as its own form: every line kept whole. */
function ownForm(src: string): CommentFree {
  const idx = new LineIndex(src);
  const keep = Int32Array.from(idx.lineStarts, (start, l) => codePointCount(src, start, idx.lineEnd(l)));
  const lines = Int32Array.from(keep, (_, i) => i + 1);
  return { text: src, changed: false, lineOf: lines, keep, from: lines, removed: [] };
}

/** The comment-free form of `src`, or undefined when it has none (see above). Linear in the text. */
export function commentFree(src: string): CommentFree | undefined {
  if (REFUSED_BLANKS.test(src)) return undefined;
  const scanned = scan(src, true);
  if (!sourceBlind(src, scanned)) return undefined;
  return layout(src, removals(src, scanned));
}

/** Whether nothing in the text runs code of its own at elaboration or turns on what reads the source (see above). */
function sourceBlind(src: string, { kinds, starts, ends }: Scanned): boolean {
  const word = (i: number) => src.slice(starts[i], ends[i]);
  let attribute = false;
  let option = false;
  for (let i = 0; i < kinds.length; i++) {
    const k = kinds[i]!;
    if (k === 'error') return false;
    if (k === 'ws' || k === 'line-comment' || k === 'block-comment' || k === 'doc-comment' || k === 'mod-doc') continue;
    if (k === 'symbol') {
      const s = word(i);
      if (s === '#') return false;
      if (s === '@[') attribute = true;
      else if (s === ']') attribute = false;
      else if (attribute && s !== ',') return false;
    } else if (k === 'ident') {
      const w = word(i);
      if (CODE_RUNNING_WORDS.has(w)) return false;
      if (attribute && !SOURCE_BLIND_ATTRIBUTES.has(w)) return false;
      if (option && !SOURCE_BLIND_OPTIONS.has(w)) return false;
      option = w === 'set_option';
    } else if (attribute && k !== 'number') return false;
    if (k !== 'ident') option = false;
  }
  return !attribute && !option;
}

const isTrivia = (k: string) => k === 'ws' || k === 'line-comment' || k === 'block-comment';

/** What the form removes: spans [start, end) in order, and the comments inside them. */
interface Cuts {
  spans: number[];
  comments: string[];
}

/**
 * For each run of blank space and comments that a line break ends before the next token, when only spaces follow
 * that break: the span from the token before it (−1, before the text, for the first) to the run's last line break.
 * Such a run keeps one line break and the next token's indentation.
 */
function removals(src: string, { kinds, starts, ends }: Scanned): Cuts {
  const cuts: Cuts = { spans: [], comments: [] };
  let prevEnd = -1;
  for (let i = 0; i < kinds.length;) {
    if (!isTrivia(kinds[i]!)) {
      prevEnd = ends[i]!;
      i++;
      continue;
    }
    const first = i;
    while (i < kinds.length && isTrivia(kinds[i]!)) i++;
    if (i === kinds.length) break; // after the last token: kept as it is
    const next = starts[i]!;
    const nl = src.lastIndexOf('\n', next - 1);
    // No line break in the run: the token before it stands between that break and the next token (or, first in the
    // text, nl and prevEnd are both −1).
    if (!onlySpaces(src, nl + 1, next) || nl === prevEnd) continue;
    cuts.spans.push(prevEnd, nl);
    for (let j = first; j < i; j++) if (kinds[j] !== 'ws') cuts.comments.push(src.slice(starts[j], ends[j]));
  }
  return cuts;
}

function onlySpaces(src: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (src.charCodeAt(i) !== 32) return false;
  return true;
}

/**
 * The form's text and its line maps. A span [a, b) ends the line holding a there (when a is on a line: −1 is before
 * the text) and drops the lines starting in (a, b]; the line after b, the next token's, is kept whole.
 */
function layout(src: string, cuts: Cuts): CommentFree {
  const spans = cuts.spans;
  const idx = new LineIndex(src);
  const starts = idx.lineStarts;
  const lineOf = new Int32Array(starts.length);
  const keep = new Int32Array(starts.length);
  const from: number[] = [];
  const pieces: string[] = [];
  let c = 0;
  for (let l = 0; l < starts.length; l++) {
    const s = starts[l]!;
    const e = idx.lineEnd(l);
    // The first span not ending before this line: one starting before the line's start drops it.
    while (spans[c + 1]! < s) c += 2;
    const a = spans[c] ?? Infinity;
    if (a < s) continue;
    const end = Math.min(e, a);
    from.push(l + 1);
    lineOf[l] = from.length;
    keep[l] = codePointCount(src, s, end);
    pieces.push(src.slice(s, end));
  }
  const text = pieces.join('\n');
  return { text, changed: spans.length > 0, lineOf, keep, from: Int32Array.from(from), removed: cuts.comments };
}
