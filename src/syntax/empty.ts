/**
 * The empty list, shared and frozen, for the syntax layer's placeholders and results that hold
 * nothing (a list made per call costs an allocation, and a first `push` room for 17): a scan's
 * all-token lists without trivia, a command's prefixes when it has none, a declaration's opens
 * until the source model fills them in. The syntax layer imports nothing outside it, so it has
 * its own; the rest of src/ shares util/arrays.ts `NONE`.
 */
export const NONE: readonly never[] = Object.freeze([]);
