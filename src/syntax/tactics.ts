/**
 * Structure inside proofs ([lean4 v4.28.0: src/Lean/Parser/Term.lean, `Tactic.tacticSeq`, `byTactic`;
 * src/Lean/Parser/Basic.lean, `checkColGe`]): the indentation-based tactic tree of a
 * `by` block, `have`-like forms with their name/type/proof spans (tactic and term
 * level), and `sorry`/`admit` positions. Works on the significant tokens of a file.
 */
import type { Span } from './commands.ts';
import { isCloser, isOpener, type SigTokens } from './significant.ts';

export interface TacticItem extends Span {
  sigStart: number;
  sigEnd: number;
  /** The tactic's leading word: `exact`, `have`, `·`, `case`, `calc`… */
  head: string;
  /** Nested tactic sequences: after a bullet, `case … =>`, `next =>`, an inner `by`, a match alternative. */
  children: TacticBlock[];
}

export interface TacticBlock extends Span {
  sigStart: number;
  sigEnd: number;
  /** Column of the block's first tactic (UTF-16 units from the line start). */
  column: number;
  items: TacticItem[];
}

export type HaveKeyword =
  'have' | 'haveI' | "have'" | 'obtain' | 'suffices' | 'show' | 'let' | 'letI' | 'replace' | 'set';

export interface HaveForm extends Span {
  keyword: HaveKeyword;
  keywordSig: number;
  /** What is bound: a name, a pattern like `⟨x, hx⟩`, or nothing (`have : T := …`). */
  binder: Span | undefined;
  type: Span | undefined;
  /** The `:=` token. */
  assign: Span | undefined;
  /** The proof or value after `:=`; undefined for Mathlib's goal form `have h : T` (no `:=`). */
  proof: Span | undefined;
  proofForm: 'term' | 'tactic' | 'none';
  /** Inside a `by` block (tactic) or a term. */
  level: 'tactic' | 'term';
}

const HAVE_WORDS = new Set<string>([
  'have',
  'haveI',
  "have'",
  'obtain',
  'suffices',
  'show',
  'let',
  'letI',
  'replace',
  'set',
]);
/** Tactics whose argument is itself a tactic sequence starting right after them. */
const SEQ_TAKING = new Set([
  'all_goals',
  'any_goals',
  'focus',
  'try',
  'repeat',
  "repeat'",
  'classical',
  'with_reducible',
  'iterate',
  'on_goal',
  'pick_goal',
  'case',
  "case'",
  'next',
  '·',
  '.',
]);

/** The end (exclusive) of the bracket group containing k, or `limit`. */
function groupEnd(sig: SigTokens, k: number, limit: number): number {
  let d = 0;
  for (let j = k; j < limit; j++) {
    if (isOpener(sig, j)) d++;
    else if (isCloser(sig, j) && --d < 0) return j;
  }
  return limit;
}

/**
 * Parse the tactic sequence that follows the token at `afterK` (a `by`, a bullet, `=>`…)
 * up to `limit` (exclusive). The block's column is its first tactic's column; a later
 * line left of it, or an unmatched closer, ends the block.
 */
export function parseTacticBlock(sig: SigTokens, afterK: number, limit: number): TacticBlock {
  const first = afterK + 1;
  if (first >= limit)
    return { start: sig.end[afterK]!, end: sig.end[afterK]!, sigStart: first, sigEnd: first, column: 0, items: [] };
  const column = sig.col[first]!;
  const items: TacticItem[] = [];
  let itemStart = first;
  let depth = 0;
  let j: number;
  const closeItem = (endK: number) => {
    if (endK > itemStart) items.push(parseItem(sig, itemStart, endK));
  };
  for (j = first + 1; j < limit; j++) {
    if (isOpener(sig, j)) {
      depth++;
      continue;
    }
    if (isCloser(sig, j)) {
      if (--depth < 0) break;
      continue;
    }
    if (depth > 0) continue;
    if (sig.firstOnLine[j]) {
      if (sig.col[j]! < column) break;
      if (sig.col[j] === column && sig.text[j] !== '<;>' && sig.text[j] !== '|') {
        closeItem(j);
        itemStart = j;
        continue;
      }
    }
    if (sig.text[j] === ';') {
      closeItem(j);
      itemStart = j + 1;
    }
  }
  closeItem(j);
  const last = Math.max(first, j - 1);
  return { start: sig.start[first]!, end: sig.end[last]!, sigStart: first, sigEnd: j, column, items };
}

function parseItem(sig: SigTokens, a: number, b: number): TacticItem {
  const head = sig.text[a]!;
  const children: TacticBlock[] = [];
  let j = a;
  if (SEQ_TAKING.has(head)) {
    // Bullets and seq-taking tactics: the rest of the item (after `=>` for case/next) is a sequence.
    let from = a;
    if (head === 'case' || head === "case'" || head === 'next') {
      from = -1;
      for (let k = a + 1; k < b; k++)
        if (sig.text[k] === '=>') {
          from = k;
          break;
        }
    } else if (head === 'iterate' || head === 'on_goal' || head === 'pick_goal') {
      from = sig.kind[a + 1] === 'number' ? a + 1 : a;
      if (sig.text[from + 1] === '=>') from++;
    }
    if (from >= 0 && from + 1 < b) {
      const child = parseTacticBlock(sig, from, b);
      children.push(child);
      j = child.sigEnd;
    }
  }
  // Inner `by` blocks and match/induction alternatives (`| pat => tacs`).
  for (; j < b; j++) {
    const t = sig.text[j];
    if (t === 'by' && sig.kind[j] === 'ident') {
      const child = parseTacticBlock(sig, j, groupEnd(sig, j, b));
      children.push(child);
      j = Math.max(j, child.sigEnd - 1);
    } else if (t === '=>' && j > a) {
      // an alternative's right-hand side: a tactic sequence (only when we are inside a `with`)
      const child = parseTacticBlock(sig, j, groupEnd(sig, j, b));
      if (child.items.length > 0) {
        children.push(child);
        j = Math.max(j, child.sigEnd - 1);
      }
    }
  }
  return { start: sig.start[a]!, end: sig.end[b - 1]!, sigStart: a, sigEnd: b, head, children };
}

/** Every item of a block tree, depth first. */
export function* walkTactics(block: TacticBlock): Generator<TacticItem> {
  for (const item of block.items) {
    yield item;
    for (const c of item.children) yield* walkTactics(c);
  }
}

/**
 * Every `have`-like form between significant tokens [from, to): its extent ends at `;`,
 * `,` (after `:=`) or an unmatched closer at its own depth, or at a later line starting at or left of
 * its keyword's column.
 */
export function findHaves(sig: SigTokens, from: number, to: number, tacticRanges: [number, number][] = []): HaveForm[] {
  const out: HaveForm[] = [];
  const inTactic = insideRanges(tacticRanges);
  for (let k = from; k < to; k++) {
    if (sig.kind[k] !== 'ident' || !HAVE_WORDS.has(sig.text[k]!)) continue;
    const extent = haveExtent(sig, k, to);
    if (extent.end <= k + 1 && extent.assign < 0) continue;
    out.push(haveForm(sig, k, extent, inTactic(k) ? 'tactic' : 'term'));
  }
  return out;
}

/**
 * Whether each of a rising sequence of token indices lies inside one of `ranges` ([start, end)):
 * one sweep over the ranges sorted by start, keeping the furthest end seen, so n queries over
 * m ranges cost O(n + m log m), not O(n × m).
 */
function insideRanges(ranges: readonly [number, number][]): (k: number) => boolean {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let next = 0;
  let furthestEnd = -1;
  return (k) => {
    for (; next < sorted.length && sorted[next]![0] <= k; next++) furthestEnd = Math.max(furthestEnd, sorted[next]![1]);
    return k < furthestEnd;
  };
}

/** Where a have-like form at k ends, and its `:` and its `:=` (or the `from`/`by` of `show`/`suffices`), at its own depth. */
interface HaveExtent {
  end: number;
  colon: number;
  assign: number;
}

function haveExtent(sig: SigTokens, k: number, to: number): HaveExtent {
  // `set_option … in`, `show` as a term keyword without a type are still have-like for spans.
  let d = 0;
  let colon = -1;
  let assign = -1;
  for (let j = k + 1; j < to; j++) {
    if (isOpener(sig, j)) {
      d++;
      continue;
    }
    if (isCloser(sig, j)) {
      if (--d < 0) return { end: j, colon, assign };
      continue;
    }
    if (d > 0) continue;
    const t = sig.text[j]!;
    if (t === ';' || (t === ',' && assign >= 0) || (sig.firstOnLine[j] && sig.col[j]! <= sig.col[k]!))
      return { end: j, colon, assign };
    if (t === ':' && colon < 0 && assign < 0) colon = j;
    else if (t === ':=' && assign < 0) assign = j;
    // `suffices h : T by tac` / `show T from e` / `show T by tac`
    else if (
      (t === 'from' || (t === 'by' && sig.text[k] !== 'have')) &&
      assign < 0 &&
      (sig.text[k] === 'show' || sig.text[k] === 'suffices')
    )
      assign = j;
  }
  return { end: to, colon, assign };
}

/** The spans of the have-like form at k whose extent is known. */
function haveForm(sig: SigTokens, k: number, { end, colon, assign }: HaveExtent, level: HaveForm['level']): HaveForm {
  const span = (a: number, b: number) => (a >= 0 && b > a ? { start: sig.start[a]!, end: sig.end[b - 1]! } : undefined);
  const kw = sig.text[k] as HaveKeyword;
  const binderEnd = colon >= 0 ? colon : assign >= 0 ? assign : end;
  const typeFrom = kw === 'show' ? k + 1 : colon >= 0 ? colon + 1 : -1;
  const proofFrom = assign >= 0 ? (sig.text[assign] === ':=' || sig.text[assign] === 'from' ? assign + 1 : assign) : -1;
  const proof = span(proofFrom, end);
  return {
    keyword: kw,
    keywordSig: k,
    start: sig.start[k]!,
    end: sig.end[end - 1]!,
    binder: kw !== 'show' ? span(k + 1, binderEnd) : undefined,
    type: span(typeFrom, assign >= 0 ? assign : end),
    assign: assign >= 0 && sig.text[assign] === ':=' ? { start: sig.start[assign]!, end: sig.end[assign]! } : undefined,
    proof,
    proofForm: proof === undefined ? 'none' : sig.text[proofFrom] === 'by' ? 'tactic' : 'term',
    level,
  };
}

/** Offsets of every `sorry` and `admit` token in [from, to). */
export function findSorries(sig: SigTokens, from: number, to: number): Span[] {
  const out: Span[] = [];
  for (let k = from; k < to; k++) {
    if (sig.kind[k] === 'ident' && (sig.text[k] === 'sorry' || sig.text[k] === 'admit'))
      out.push({ start: sig.start[k]!, end: sig.end[k]! });
  }
  return out;
}
