/**
 * Where a file's header (`module`, `prelude`, `import …`) ends, without parsing the whole
 * file: the header is a short prefix, so read its first tokens (`partialScan`) and more only
 * while the header could still continue past them. Same answer as `parseSource(text).header.end`.
 *
 * Why the first tokens are enough: they are those of the whole text (the lexer reads left to
 * right and a partial scan cuts no token short). `parseHeader` looks at the header's tokens,
 * then past the run of import modifiers after it (`public meta …`) for an `import`; when a token
 * follows that run, its answer is final. Otherwise the count doubles and the scan goes on from
 * where it stopped, so each token is read once and the header's tokens a bounded number of times.
 */
import { isWhitespace } from './chars.ts';
import { parseHeader } from './commands.ts';
import { HEADER_STATEMENTS, IMPORT_MODIFIERS } from './keywords.ts';
import { partialScan } from './lexer.ts';

/** Tokens read first: a short header and what follows it. */
const FIRST_TOKENS = 16;

export function headerEnd(text: string): number {
  if (!mayOpenHeader(text)) return 0;
  const lexed = partialScan(text);
  for (let count = FIRST_TOKENS; ; count *= 2) {
    const ended = lexed.readTo(count);
    const { sig } = lexed;
    const h = parseHeader(sig);
    let j = h.sigEnd;
    while (j < sig.length && IMPORT_MODIFIERS.has(sig.text[j]!)) j++;
    if (ended || j < sig.length) return h.end;
  }
}

/** The first character of each word a header can begin with. */
const HEADER_INITIALS = new Set([...HEADER_STATEMENTS, ...IMPORT_MODIFIERS, 'import'].map((w) => w.charCodeAt(0)));

/**
 * False when the text's first significant token cannot be a header word (`module`, `prelude`,
 * `import` or an import modifier), read from its first character: most request bodies have no
 * header, and this answers them without lexing. A comment first (`--`, `/-`) or one of those
 * initials leaves the answer to the scan.
 */
export function mayOpenHeader(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isWhitespace(c)) continue;
    return HEADER_INITIALS.has(c) || c === 45 /* - */ || c === 47; /* / */
  }
  return false;
}
