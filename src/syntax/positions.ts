/**
 * JS offsets (UTF-16 units) ↔ Lean positions (1-based line, 0-based column counted in
 * code points [lean4 v4.28.0: src/Lean/Data/Position.lean, `FileMap.toPosition`]) ↔ UTF-8 byte
 * offsets (Lean's String.Pos).
 */

export interface LeanPosition {
  line: number;
  column: number;
}

export class LineIndex {
  /** JS offset of the first unit of each line. */
  readonly lineStarts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.lineStarts = starts;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 0-based line of a JS offset (binary search). */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** JS offset just past the last unit of 0-based line `i` (its line break's, or the text's end). */
  lineEnd(i: number): number {
    return i + 1 < this.lineStarts.length ? this.lineStarts[i + 1]! - 1 : this.text.length;
  }

  /** Code points between the line start and the offset. */
  columnOf(offset: number): number {
    return codePointCount(this.text, this.lineStarts[this.lineOf(offset)]!, offset);
  }

  toLean(offset: number): LeanPosition {
    return { line: this.lineOf(offset) + 1, column: this.columnOf(offset) };
  }

  /** JS offset of a Lean position; columns past the line end clamp to it. */
  fromLean(pos: LeanPosition): number {
    const lineIdx = Math.min(Math.max(pos.line - 1, 0), this.lineStarts.length - 1);
    const start = this.lineStarts[lineIdx]!;
    const end = this.lineEnd(lineIdx);
    let i = start;
    for (let col = 0; col < pos.column && i < end; col++) {
      const c = this.text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
    }
    return Math.min(i, end);
  }
}

/** Code points in text[from, to): a surrogate pair counts once, as Lean's columns do. */
export function codePointCount(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/** UTF-8 byte length of a JS string slice, without allocating. */
export function utf8Length(s: string, from = 0, to = s.length): number {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
