/**
 * The significant (non-trivia) tokens of a file with the layout facts the splitter and
 * tactic parser need: text, 0-based line, column (UTF-16 units from the line start,
 * exact for indentation since leading whitespace is ASCII) and whether the token is the
 * first on its line.
 */
import { CLOSERS, OPENER_SET } from './keywords.ts';
import type { Token } from './lexer.ts';

export interface SigTokens {
  text: string[];
  kind: Token['kind'][];
  start: number[];
  end: number[];
  line: number[];
  col: number[];
  firstOnLine: boolean[];
  length: number;
}

/**
 * The significant tokens without their layout (line, column, first on its line): what a reader of a
 * text's first tokens needs (`partialScan`: `commandHead`, `headerEnd`), and all that the readers it
 * calls look at (`skipDeclPrefix`, `classify`, `parseHeader`).
 */
export type HeadTokens = Pick<SigTokens, 'text' | 'kind' | 'start' | 'end' | 'length'>;

/** Is token k an opening bracket (`(`, `[`, `⟨`, `@[`…)? */
export const isOpener = (sig: Pick<SigTokens, 'kind' | 'text'>, k: number): boolean =>
  sig.kind[k] === 'symbol' && OPENER_SET.has(sig.text[k]!);
/** Is token k a closing bracket? */
export const isCloser = (sig: Pick<SigTokens, 'kind' | 'text'>, k: number): boolean =>
  sig.kind[k] === 'symbol' && CLOSERS.has(sig.text[k]!);

/**
 * The first token that starts at or after `offset` (`sig.length` when none): a binary search,
 * since tokens are in source order. Per-declaration lookups use it so that a file with many
 * declarations stays linear (a scan from the first token made them quadratic).
 */
export function firstTokenFrom(sig: SigTokens, offset: number): number {
  let lo = 0;
  let hi = sig.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sig.start[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
