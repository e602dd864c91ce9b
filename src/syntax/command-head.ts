/**
 * What the backend asks about the text of one command (a content unit: one command, possibly after
 * comments): how it begins, read by the one lexer and keyword table, so no other part keeps its own
 * list of Lean words. The head is read from the first tokens of the text, more only while the
 * head could still reach past them (`partialScan`), as `headerEnd` does: a long proof costs nothing here.
 */
import { classify, skipDeclPrefix, type CommandKind } from './commands.ts';
import { SCOPE_MODIFIERS } from './keywords.ts';
import { partialScan, scan } from './lexer.ts';
import type { HeadTokens } from './significant.ts';

export interface CommandHead {
  /** As the splitter classifies it: `declaration`, `section`, `end`, `hash`, `set_option`… (`other` when empty). */
  kind: CommandKind;
  /** The leading keyword after doc comment, attributes and modifiers: `theorem`, `#check`, `noncomputable section`… */
  keyword: string;
  /** A `local`/`scoped` modifier or attribute (`@[local simp]`): the command's effect ends with its scope. */
  scoped: boolean;
  /** Offset of the first significant token (the text's length when there is none). */
  start: number;
}

/** Tokens read first: a keyword and the two after it, behind a modifier (more are read while the prefixes run on). */
const FIRST_TOKENS = 4;

export function commandHead(text: string): CommandHead {
  // Only the first tokens are lexed (a long proof costs nothing), more while the prefixes run on:
  // `classify` looks at most two tokens past them (`class inductive`, `#` + word).
  const lexed = partialScan(text);
  for (let count = FIRST_TOKENS; ; count *= 2) {
    const ended = lexed.readTo(count);
    const kw = skipDeclPrefix(lexed.sig, 0);
    if (ended || kw + 2 < lexed.sig.length) return headOf(lexed.sig, kw, text.length);
  }
}

/** `kw`: where the keyword after the prefixes is (`skipDeclPrefix`). */
function headOf(sig: HeadTokens, kw: number, textLength: number): CommandHead {
  const { kind, keyword } = classify(sig, 0, kw);
  let scoped = false;
  for (let k = 0; k < kw && !scoped; k++) scoped = sig.kind[k] === 'ident' && SCOPE_MODIFIERS.has(sig.text[k]!);
  return { kind, keyword, scoped, start: sig.length > 0 ? sig.start[0]! : textLength };
}

/** The option and value of a command that is exactly `set_option name value` (comments aside), else undefined. */
export function setOptionOf(text: string): { name: string; value: string } | undefined {
  const { sig } = scan(text);
  if (sig.length !== 3 || sig.text[0] !== 'set_option' || sig.kind[1] !== 'ident') return undefined;
  return { name: sig.text[1]!, value: sig.text[2]! };
}

/** Whether the text spans lines and its last line of code begins with `end` (a block that closes its own scope). */
export function endsWithEnd(text: string): boolean {
  const { sig } = scan(text);
  let k = sig.length - 1;
  while (k > 0 && !sig.firstOnLine[k]) k--;
  return k > 0 && sig.line[k]! > sig.line[0]! && sig.kind[k] === 'ident' && sig.text[k] === 'end';
}
