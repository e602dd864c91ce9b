/**
 * Name globs without a regular expression. A glob matches a whole name; `*` stands for any run of
 * characters (empty, dots and line breaks included), every other character for itself; a pattern
 * without `*` is an exact name. A glob compiled to a backtracking regex (`a*b` → `^a.*b$`) tries
 * every way to place its stars on a name that almost matches: ten stars against a 40-character
 * name are C(40, 10) ≈ 8.5·10^8 placements. This matcher is linear in the name.
 *
 * How: `S0*S1*…*Sk` matches `name` iff `name` starts with S0, ends with Sk (not overlapping S0),
 * and the part between holds S1…S(k-1) in order without overlap. Taking each middle piece at its
 * leftmost occurrence after the previous one is optimal (a later occurrence leaves less room for
 * the rest), so there is no backtracking; each piece is found by Knuth–Morris–Pratt search, whose
 * failure table is built once per pattern. Every name position is scanned by at most one search,
 * and KMP reads each position at most twice: a match costs at most 2·|name| + |S0| + |Sk| steps.
 */

/** A pattern compiled once: its `*`-separated pieces and each middle piece's KMP failure table. */
export interface Glob {
  readonly pattern: string;
  /** S0…Sk; a pattern without `*` is one piece. */
  readonly pieces: readonly string[];
  /** Failure tables of the middle pieces S1…S(k-1) (index i for piece i; the ends have none). */
  readonly failure: readonly Int32Array[];
}

/** Counts the matcher's character comparisons (tests bound them; nothing else reads it). */
export interface StepCounter {
  steps: number;
}

export const isGlob = (pattern: string): boolean => pattern.includes('*');

/** KMP failure table: f[i] is the length of the longest proper border of piece[0..i]. */
function failureTable(piece: string): Int32Array {
  const f = new Int32Array(piece.length);
  for (let i = 1, k = 0; i < piece.length; i++) {
    while (k > 0 && piece.charCodeAt(i) !== piece.charCodeAt(k)) k = f[k - 1]!;
    if (piece.charCodeAt(i) === piece.charCodeAt(k)) k++;
    f[i] = k;
  }
  return f;
}

export function compileGlob(pattern: string): Glob {
  const pieces = pattern.split('*');
  const failure = pieces.map((p, i) => (i > 0 && i < pieces.length - 1 ? failureTable(p) : new Int32Array(0)));
  return { pattern, pieces, failure };
}

/**
 * The end of the first occurrence of `piece` in `name[from, to)`, or -1: KMP, each position of
 * the range read once plus at most once more per fallback (fallbacks never exceed advances).
 */
function findPiece(name: string, from: number, to: number, piece: string, f: Int32Array, c?: StepCounter): number {
  if (piece.length === 0) return from;
  for (let i = from, k = 0; i < to; i++) {
    const ch = name.charCodeAt(i);
    while (k > 0 && ch !== piece.charCodeAt(k)) {
      k = f[k - 1]!;
      if (c) c.steps++;
    }
    if (c) c.steps++;
    if (ch === piece.charCodeAt(k) && ++k === piece.length) return i + 1;
  }
  return -1;
}

/** Whether `name` matches the whole of `glob`; `counter` (tests) adds the comparisons made. */
export function matchGlob(glob: Glob, name: string, counter?: StepCounter): boolean {
  const { pieces, failure } = glob;
  const first = pieces[0]!;
  if (pieces.length === 1) return name === first;
  const last = pieces[pieces.length - 1]!;
  if (first.length + last.length > name.length) return false;
  if (counter) counter.steps += first.length + last.length;
  if (!name.startsWith(first) || !name.endsWith(last)) return false;
  const end = name.length - last.length;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1 && at >= 0; i++)
    at = findPiece(name, at, end, pieces[i]!, failure[i]!, counter);
  return at >= 0;
}

/** A list of exact names and globs, compiled once: exact names are looked up, globs tried in turn. */
export interface NamePatterns {
  readonly exact: ReadonlySet<string>;
  readonly globs: readonly Glob[];
}

export function compileNamePatterns(patterns: readonly string[] | undefined): NamePatterns {
  const exact = new Set<string>();
  const globs: Glob[] = [];
  for (const p of patterns ?? []) {
    if (isGlob(p)) globs.push(compileGlob(p));
    else exact.add(p);
  }
  return { exact, globs };
}

/** Whether any of the patterns matches `name`: O(1) for the exact names, linear in `name` per glob. */
export function matchesAny(patterns: NamePatterns, name: string, counter?: StepCounter): boolean {
  if (patterns.exact.has(name)) return true;
  for (const g of patterns.globs) if (matchGlob(g, name, counter)) return true;
  return false;
}
