/**
 * Where a file's header (`module`, `prelude`, `import …`) ends, without parsing the whole
 * file: the header is a short prefix, so scan a prefix of the text and grow it only while
 * the header could still continue past it. Same answer as `parseSource(text).header.end`.
 *
 * Why a prefix is enough: the lexer reads left to right, so the tokens of a prefix equal
 * those of the whole text except possibly the prefix's last one (cut short). `parseHeader`
 * looks at the header's tokens and one token after them; when that token is followed by
 * another one inside the prefix, it was not cut, and the answer is final. Otherwise the
 * prefix doubles, so the total work stays within twice one scan of the text.
 */
import { parseHeader } from './commands.ts';
import { scan } from './lexer.ts';

const FIRST_PREFIX = 4096;

export function headerEnd(text: string): number {
  for (let size = FIRST_PREFIX; ; size *= 2) {
    if (size >= text.length) return parseHeader(scan(text).sig).end;
    const { sig } = scan(text.slice(0, size));
    const h = parseHeader(sig);
    if (h.sigEnd + 1 < sig.length) return h.end;
  }
}
