/**
 * Text edits against an original text. Every transformation is a set of non-overlapping
 * edits applied in one pass, so everything outside an edit stays byte-identical.
 */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

export class EditConflictError extends Error {
  constructor(
    readonly a: TextEdit,
    readonly b: TextEdit,
  ) {
    super(`overlapping edits [${a.start}, ${a.end}) and [${b.start}, ${b.end})`);
    this.name = 'EditConflictError';
  }
}

/**
 * The output of a transformation would be longer than its caller allows (a rename of
 * a short name into a long one at every occurrence grew 588 KB into 382 MB). Raised before the
 * output is built when the size can be predicted (applyEdits with `maxChars`).
 */
export class OutputLimitError extends Error {
  constructor(
    readonly chars: number,
    readonly limit: number,
  ) {
    super(`the output would be at least ${chars} characters, over the limit of ${limit}`);
    this.name = 'OutputLimitError';
  }
}

/** The length of `text` once `edits` apply (linear; nothing is built). */
export function editedLength(text: string, edits: readonly TextEdit[]): number {
  let n = text.length;
  for (const e of edits) n += e.text.length - (e.end - e.start);
  return n;
}

export const replace = (start: number, end: number, text: string): TextEdit => ({ start, end, text });
export const insert = (at: number, text: string): TextEdit => ({ start: at, end: at, text });
export const remove = (start: number, end: number): TextEdit => ({ start, end, text: '' });

/**
 * Apply edits to `text`. Edits may come in any order; insertions at the same offset keep
 * their given order. Overlapping replacements throw EditConflictError, out-of-range ones RangeError;
 * an output longer than `maxChars` throws OutputLimitError before it is built.
 */
export function applyEdits(text: string, edits: readonly TextEdit[], maxChars = Infinity): string {
  if (maxChars < Infinity) {
    const chars = editedLength(text, edits);
    if (chars > maxChars) throw new OutputLimitError(chars, maxChars);
  }
  const sorted = edits
    .map((e, i) => ({ e, i }))
    .sort((x, y) => x.e.start - y.e.start || x.e.end - y.e.end || x.i - y.i)
    .map((x) => x.e);
  let out = '';
  let pos = 0;
  let prev: TextEdit | undefined;
  for (const e of sorted) {
    if (e.start < 0 || e.end > text.length || e.start > e.end)
      throw new RangeError(`edit [${e.start}, ${e.end}) outside text of length ${text.length}`);
    if (prev && e.start < prev.end) throw new EditConflictError(prev, e);
    out += text.slice(pos, e.start) + e.text;
    pos = e.end;
    prev = e;
  }
  return out + text.slice(pos);
}
