// Surviving mutants argued equivalent (no test can tell them from the original), each with its
// argument. Keyed `file|mutator|original line (trimmed)|replacement`, as the report lists them, so
// a change to the line makes the argument lapse and the mutant show again.
export const EQUIVALENT = {};
