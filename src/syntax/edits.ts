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

export const replace = (start: number, end: number, text: string): TextEdit => ({ start, end, text });
export const insert = (at: number, text: string): TextEdit => ({ start: at, end: at, text });
export const remove = (start: number, end: number): TextEdit => ({ start, end, text: '' });

/**
 * Apply edits to `text`. Edits may come in any order; insertions at the same offset keep
 * their given order. Overlapping replacements throw EditConflictError, out-of-range ones RangeError.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
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
