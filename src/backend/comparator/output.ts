/** Bounded capture of a child's interleaved stdout and stderr: the head and the tail, the middle elided. */
export class BoundedOutput {
  #head = '';
  #tail = '';
  #omitted = 0;
  readonly #half: number;

  constructor(limitChars: number) {
    this.#half = Math.max(1, Math.floor(limitChars / 2));
  }

  push(chunk: string): void {
    if (this.#head.length < this.#half) {
      const take = this.#half - this.#head.length;
      this.#head += chunk.slice(0, take);
      chunk = chunk.slice(take);
    }
    if (!chunk) return;
    this.#tail += chunk;
    // Trim only past twice the bound, so each character is copied O(1) times (linear overall).
    if (this.#tail.length > 2 * this.#half) {
      this.#omitted += this.#tail.length - this.#half;
      this.#tail = this.#tail.slice(-this.#half);
    }
  }

  text(): string {
    let tail = this.#tail;
    let omitted = this.#omitted;
    if (tail.length > this.#half) {
      omitted += tail.length - this.#half;
      tail = tail.slice(-this.#half);
    }
    return omitted > 0 ? `${this.#head}\n… [${omitted} characters of output omitted] …\n${tail}` : this.#head + tail;
  }
}

/** The last non-empty line of a stream, tracked with a bounded buffer. */
export class LastLine {
  #buf = '';

  push(chunk: string): void {
    this.#buf = (this.#buf + chunk).slice(-4096);
  }

  get value(): string {
    const lines = this.#buf
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines[lines.length - 1] ?? '';
  }
}
