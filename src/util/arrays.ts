/**
 * Array helpers that never spread an input-sized array into a call: `xs.push(...ys)` and
 * `Math.max(...ys)` pass every element as an argument and overflow the stack at around
 * 10^5 elements (a request with 125k names did exactly that). Also the shared values that
 * hold or do nothing (`NONE`, `noop`), made once instead of once per call.
 */

/**
 * The empty list, shared and frozen: for a result or a placeholder that holds nothing (a list made
 * per call costs an allocation, and a first `push` room for 17). Typed `readonly`: nothing may
 * add to it.
 */
export const NONE: readonly never[] = Object.freeze([]);

/**
 * Does nothing. One module function for every place that needs a callback or a placeholder that
 * does nothing (progress nobody listens to, a member assigned later): no closure per call, and
 * none named per call by the build's `keepNames` (docs/hot-paths.md).
 */
export function noop(): void {}

/** Append every element of each source to `target`, in order; returns `target`. */
export function pushAll<T>(target: T[], ...sources: readonly (readonly T[])[]): T[] {
  // Indexed loops: `for…of` over arrays builds an iterator object per source on every call.
  for (let s = 0; s < sources.length; s++) {
    const src = sources[s]!;
    for (let i = 0; i < src.length; i++) target.push(src[i]!);
  }
  return target;
}

/** The largest of `first` and `rest` (a loop, not `Math.max(...rest)`). */
export function maxOf(first: number, rest: Iterable<number>): number {
  let m = first;
  for (const x of rest) if (x > m) m = x;
  return m;
}

/** The smallest of `first` and `rest`. */
export function minOf(first: number, rest: Iterable<number>): number {
  let m = first;
  for (const x of rest) if (x < m) m = x;
  return m;
}
