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

/**
 * Whether a finished comparator run is a verdict on the pair (and so may be cached), not a failure to
 * get that far. comparator's order at every pinned tag [comparator v4.28.0 … v4.33.0: Main.lean]: `main`
 * parses config.json (`FromJson`: a missing field such as `enable_nanoda` throws), `M.run` asks
 * `lean --print-prefix` and `which git`, then `compareIt` builds and exports the challenge, prints
 * `Building <solution module>` (`safeLakeBuild`'s first act) and builds, exports and compares the solution;
 * every failure throws, which exits 1. A failure before the solution's build began is the setup's (the
 * configuration, a tool, the sandbox) or the challenge's, and the output cannot tell them apart (the
 * challenge's failed build and a broken sandbox both read `Child exited with …`): not a verdict. From the
 * solution's build on, the tools and the sandbox have worked once on the challenge, so a failure is the
 * solution's. Exit 0 is only reached after `Your solution is okay!`; any other status (a signal, the
 * deadline's kill) is not a verdict. When the captured output elides the middle, the `Building` line may be
 * lost: the run is then not cached, the safe side.
 */
export function isVerdict(exitStatus: number, output: string, solutionModule: string): boolean {
  if (exitStatus === 0) return true;
  if (exitStatus !== 1) return false;
  const building = `Building ${solutionModule}`;
  return output.split('\n').some((l) => l.trim() === building);
}
