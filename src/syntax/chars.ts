/**
 * Lean 4's identifier character classes [lean4 v4.28.0: src/Init/Meta/Defs.lean, isLetterLike,
 * isSubScriptAlnum, isIdFirst, isIdRest], on code points.
 */

export function isLetterLike(c: number): boolean {
  return (
    (c >= 0x3b1 && c <= 0x3c9 && c !== 0x3bb) || // α-ω except λ
    (c >= 0x391 && c <= 0x3a9 && c !== 0x3a0 && c !== 0x3a3) || // Α-Ω except Π and Σ
    (c >= 0x3ca && c <= 0x3fb) || // Coptic
    (c >= 0x1f00 && c <= 0x1ffe) || // Greek extended
    (c >= 0x2100 && c <= 0x214f) || // Letterlike symbols (ℕ ℝ ℤ …)
    (c >= 0x1d49c && c <= 0x1d59f) || // Mathematical alphanumerics (astral)
    (c >= 0xc0 && c <= 0xff && c !== 0xd7 && c !== 0xf7) || // Latin-1 letters (lean4 PR #9035, before v4.24.0)
    (c >= 0x100 && c <= 0x17f) // Latin Extended-A
  );
}

export function isSubScriptAlnum(c: number): boolean {
  return (c >= 0x2080 && c <= 0x2089) || (c >= 0x2090 && c <= 0x209c) || (c >= 0x1d62 && c <= 0x1d6a) || c === 0x2c7c;
}

const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
export const isDigit = (c: number) => c >= 48 && c <= 57;

// ASCII fast path: bit 1 = identifier start, bit 2 = identifier continuation.
const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (isAsciiLetter(c) || c === 95 /* _ */) ASCII[c] = 3;
  else if (isDigit(c) || c === 39 /* ' */ || c === 33 /* ! */ || c === 63 /* ? */) ASCII[c] = 2;
}

export function isIdFirst(c: number): boolean {
  return c < 128 ? (ASCII[c]! & 1) !== 0 : isLetterLike(c);
}

export function isIdRest(c: number): boolean {
  return c < 128 ? (ASCII[c]! & 2) !== 0 : isLetterLike(c) || isSubScriptAlnum(c);
}

export const isHexDigit = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Whitespace as Lean's `whitespace` skips it (tabs and lone CRs are errors in Lean, still trivia here). */
export const isWhitespace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 11;
