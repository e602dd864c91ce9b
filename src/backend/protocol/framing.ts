/**
 * The REPL's framing [repl v4.28.0: REPL/Main.lean, `getLines` / `loop`]: a request is one JSON
 * object followed by a blank line (we always send it on one line, so no raw newline can
 * sit inside a string); a response is pretty-printed multi-line JSON followed by a blank
 * line. JSON escapes newlines inside strings, so a blank line only ever ends a response.
 */
import { NONE } from '../../util/arrays.ts';

export class FramingError extends Error {
  constructor(
    message: string,
    readonly block: string,
    readonly tooLarge = false,
  ) {
    super(message);
    this.name = 'FramingError';
  }
}

export function encodeRequest(request: object): string {
  return `${JSON.stringify(request)}\n\n`;
}

/** The largest response the decoder buffers (bytes of UTF-16 text); past it the REPL is killed. */
export const DEFAULT_MAX_RESPONSE_CHARS = 256 * 1024 * 1024;

/**
 * Accumulates stdout chunks and yields each complete response as parsed JSON. Each chunk
 * is scanned once, for the blank line only (plus the one character of the previous chunk
 * it may complete), and kept in a list until its response is complete: linear in the
 * output, however it is split. A response longer than `maxChars` is a FramingError.
 */
export class ResponseDecoder {
  #chunks: string[] = [];
  #length = 0;

  constructor(private readonly maxChars = DEFAULT_MAX_RESPONSE_CHARS) {}

  /** Feed a chunk; returns the responses it completed. Throws FramingError on non-JSON or oversized output. */
  push(chunk: string): readonly unknown[] {
    // Most chunks complete one response: a list of one (a first push allocates room for 17).
    let out: unknown[] | undefined;
    let rest = chunk;
    for (;;) {
      if (this.#length === 0) rest = skipBlank(rest);
      if (rest.length === 0) break;
      // A blank line may straddle the previous chunk's last character and this one's first.
      const straddles = this.#length > 0 && this.#chunks[this.#chunks.length - 1]!.endsWith('\n') && rest[0] === '\n';
      const end = straddles ? 0 : rest.indexOf('\n\n');
      if (end < 0) {
        this.#append(rest);
        break;
      }
      let block: string;
      if (this.#length === 0) {
        // The whole response is in this chunk (the common case): no list to fill, join and renew.
        block = rest.slice(0, end);
        rest = rest.slice(end + 2);
      } else {
        if (straddles) {
          const joined = this.#chunks.join('');
          block = joined.slice(0, joined.length - 1);
          rest = rest.slice(1);
        } else {
          this.#chunks.push(rest.slice(0, end));
          block = this.#chunks.join('');
          rest = rest.slice(end + 2);
        }
        this.#chunks = [];
        this.#length = 0;
      }
      try {
        const json: unknown = JSON.parse(block);
        if (out) out.push(json);
        else out = [json];
      } catch (e) {
        throw new FramingError(`REPL wrote something that is not JSON: ${(e as Error).message}`, block.slice(0, 500));
      }
    }
    // A response without its blank line yet stays buffered; anything that cannot start JSON is garbage now.
    if (this.#length > 0 && !/^\s*[{[]/.test(this.#chunks[0]!.slice(0, 64))) {
      throw new FramingError('REPL wrote something that is not JSON', this.#chunks[0]!.slice(0, 500));
    }
    return out ?? NONE;
  }

  #append(s: string): void {
    this.#chunks.push(s);
    this.#length += s.length;
    if (this.#length > this.maxChars) {
      const head = this.#chunks[0]!.slice(0, 500);
      this.#chunks = [];
      this.#length = 0;
      throw new FramingError(`the REPL's response exceeds the limit of ${this.maxChars} characters`, head, true);
    }
  }

  /** Bytes buffered without a complete response (a REPL that died mid-response leaves some). */
  get pending(): number {
    return this.#chunks.join('').trim().length;
  }
}

function skipBlank(s: string): string {
  let i = 0;
  while (i < s.length && (s[i] === '\n' || s[i] === '\r' || s[i] === ' ')) i++;
  return i === 0 ? s : s.slice(i);
}

/** Split a transcript `.in` file into its requests (blank-line separated, as the REPL reads them). */
export function splitRequests(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
