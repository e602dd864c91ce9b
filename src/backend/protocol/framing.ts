/**
 * The REPL's framing [repl v4.28.0: REPL/Main.lean, `getLines` / `loop`]: a request is one JSON
 * object followed by a blank line (we always send it on one line, so no raw newline can
 * sit inside a string); a response is pretty-printed multi-line JSON followed by a blank
 * line. JSON escapes newlines inside strings, so a blank line only ever ends a response.
 */

export class FramingError extends Error {
  constructor(message: string, readonly block: string) {
    super(message);
    this.name = 'FramingError';
  }
}

export function encodeRequest(request: object): string {
  return `${JSON.stringify(request)}\n\n`;
}

/** Accumulates stdout chunks and yields each complete response as parsed JSON. */
export class ResponseDecoder {
  #buffer = '';

  /** Feed a chunk; returns the responses it completed. Throws FramingError on non-JSON output. */
  push(chunk: string): unknown[] {
    this.#buffer += chunk;
    const out: unknown[] = [];
    for (;;) {
      const start = this.#skipBlank();
      if (start > 0) this.#buffer = this.#buffer.slice(start);
      const end = this.#buffer.indexOf('\n\n');
      if (end < 0) break;
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      try {
        out.push(JSON.parse(block));
      } catch (e) {
        throw new FramingError(`REPL wrote something that is not JSON: ${(e as Error).message}`, block.slice(0, 500));
      }
    }
    // A response without its blank line yet stays buffered; anything that cannot start JSON is garbage now.
    if (this.#buffer.length > 0 && !/^\s*[{[]/.test(this.#buffer) && this.#buffer.trim().length > 0) {
      throw new FramingError('REPL wrote something that is not JSON', this.#buffer.slice(0, 500));
    }
    return out;
  }

  /** Bytes buffered without a complete response (a REPL that died mid-response leaves some). */
  get pending(): number {
    return this.#buffer.trim().length;
  }

  #skipBlank(): number {
    let i = 0;
    while (i < this.#buffer.length && (this.#buffer[i] === '\n' || this.#buffer[i] === '\r' || this.#buffer[i] === ' ')) i++;
    return i;
  }
}

/** Split a transcript `.in` file into its requests (blank-line separated, as the REPL reads them). */
export function splitRequests(text: string): string[] {
  return text.split(/\n\s*\n/).map((s) => s.trim()).filter((s) => s.length > 0);
}
