/**
 * The size bound of a response (no answer grows without bound): `limits.responseFactor` times the request,
 * at least `limits.responseMinBytes`. Measured in characters of JSON text, which is what is
 * built and kept; the estimate below walks the result without serialising it.
 */
import { OutputLimitError } from '../syntax/edits.ts';

export interface ResponseLimits {
  /** A response may be this many times the request's size… */
  responseFactor: number;
  /** …and always at least this many bytes. */
  responseMinBytes: number;
}

/** The bound for a request of `inputChars` characters. */
export const responseLimit = (inputChars: number, l: ResponseLimits): number =>
  Math.max(l.responseMinBytes, Math.ceil(l.responseFactor * inputChars));

/**
 * The length of `v`'s JSON text, within a few characters per string (escapes are not
 * counted), computed by a walk that stops once past `stopAt`: linear, allocation-free.
 */
export function responseChars(v: unknown, stopAt = Infinity): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length > 0 && n <= stopAt) {
    const x = stack.pop();
    if (typeof x === 'string') n += x.length + 2;
    else if (Array.isArray(x)) {
      n += 2 + x.length;
      for (const item of x) stack.push(item);
    } else if (x && typeof x === 'object') {
      n += 2;
      for (const k in x) {
        if (!Object.hasOwn(x, k)) continue;
        n += k.length + 4;
        stack.push((x as Record<string, unknown>)[k]);
      }
    } else n += 5; // numbers, booleans, null: a few characters each
  }
  return n;
}

/** Throws OutputLimitError when `v` is over `limit` characters (nothing when there is no limit). */
export function checkResponseSize(v: unknown, limit: number | undefined): void {
  if (limit === undefined || limit === Infinity) return;
  const chars = responseChars(v, limit);
  if (chars > limit) throw new OutputLimitError(chars, limit);
}

/**
 * A running total of the output a tool builds piece by piece (extract_decls' standalone
 * documents grow quadratically with dependency depth): throws once past the limit, so the
 * work stops there instead of after building all of it.
 */
export function outputBudget(limit: number | undefined): (chars: number) => void {
  let used = 0;
  const max = limit ?? Infinity;
  return (chars) => {
    used += chars;
    if (used > max) throw new OutputLimitError(used, max);
  };
}
