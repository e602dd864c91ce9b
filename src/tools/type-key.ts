/**
 * A key under which two printed types are equal exactly when they are the same text up to
 * whitespace and a consistent renaming of the outer ∀-binders' names (alpha-equivalence of
 * the leading binders), e.g. `∀ (n m : ℕ), n + m = m + n` and `∀ (a b : ℕ), a + b = b + a`.
 * Nested binders are kept as written: two types may then be equivalent yet get different keys
 * (a missed merge), never the reverse, since the renaming is a bijection on identifiers.
 */
import { lex, isTrivia } from '../syntax/lexer.ts';

const OPEN = new Set(['(', '{', '[', '⦃', '{{', '⟨']);
const CLOSE = new Set([')', '}', ']', '⦄', '}}', '⟩']);
/** Not an identifier Lean prints, so a bound name can never collide with a free one. */
const bound = (k: number) => `⟪${k}⟫`;

/** `rename` maps free identifiers (declarations renamed in this input) to their new names. */
export function typeKey(type: string, rename: ReadonlyMap<string, string> = new Map()): string {
  const toks = lex(type).filter((t) => !isTrivia(t.kind));
  const text = toks.map((t) => type.slice(t.start, t.end));
  const names = new Map<string, string>();
  if (text[0] === '∀' || text[0] === 'forall') {
    let i = 1;
    let group: string[] = [];
    let depth = 0;
    for (; i < toks.length; i++) {
      const s = text[i]!;
      if (depth === 0 && s === ',') break;
      if (OPEN.has(s)) {
        if (depth++ === 0) group = [];
      } else if (CLOSE.has(s)) {
        depth--;
      } else if (depth === 1 && s === ':') {
        for (const n of group) if (!names.has(n)) names.set(n, bound(names.size));
        group = [];
        // Skip the binder's type up to its closer.
        let d = 1;
        for (i++; i < toks.length; i++) {
          if (OPEN.has(text[i]!)) d++;
          else if (CLOSE.has(text[i]!) && --d === 0) break;
        }
        depth = 0;
      } else if (toks[i]!.kind === 'ident' && depth <= 1) {
        if (depth === 0) {
          if (!names.has(s)) names.set(s, bound(names.size)); // `∀ a b, …`
        } else group.push(s);
      }
    }
  }
  return toks
    .map((t, k) => (t.kind === 'ident' ? (names.get(text[k]!) ?? rename.get(text[k]!) ?? text[k]!) : text[k]!))
    .join(' ');
}
