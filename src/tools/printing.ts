/**
 * How goals are printed for the tools that turn Lean's goals into source (have2lemma,
 * sorry2lemma) or report them (disprove, extract_decls): the spec's `verbosity` preset
 * (0 standard, 1 robust, 2 extra robust) with `delab_options` on top. The options are set with
 * `set_option` before the content, so the commands' info trees carry them, and the REPL prints
 * each sorry's goal through `ContextInfo.runMetaM`, which runs under the info's options
 * [lean4 v4.28.0: src/Lean/Elab/InfoTree/Main.lean, `ContextInfo.runCoreM` uses
 * `withOptions (fun _ => info.options)`; repl v4.28.0: REPL/Main.lean, `sorries`; REPL/Snapshots.lean,
 * `ProofSnapshot.create`/`ppGoals`]. The option names and defaults are Lean's
 * [lean4 v4.28.0: src/Lean/PrettyPrinter/Delaborator/Options.lean, `register_builtin_option pp.*`].
 * docs/tools.md lists the table.
 */
type OptionValue = boolean | number | string;

/** Level 1: what commonly keeps a printed statement from elaborating again, made explicit. */
const ROBUST: Record<string, OptionValue> = {
  'pp.numericTypes': true, // `(2 : ℝ)` instead of `2`, which re-elaborates as a Nat
  'pp.coercions.types': true, // coercions with a type ascription: `↑x` alone may not elaborate
  'pp.proofs': true, // proofs inside types instead of `⋯`
  'pp.deepTerms': true, // deep subterms instead of `⋯`
  'pp.funBinderTypes': true, // `fun (x : α) => …`
  'pp.letVarTypes': true,
  'pp.structureInstanceTypes': true,
  'pp.fieldNotation.generalized': false, // `List.length l`, not `l.length` resolved through the receiver's type
};

/** Level 2: maximal explicitness short of `pp.all` (which also drops notation). */
const EXTRA_ROBUST: Record<string, OptionValue> = {
  ...ROBUST,
  'pp.explicit': true, // implicit arguments: polymorphic functions get their types
  'pp.universes': true,
  'pp.fullNames': true,
  'pp.fieldNotation': false,
  'pp.instanceTypes': true,
};

export const VERBOSITY_PRESETS: readonly Record<string, OptionValue>[] = [{}, ROBUST, EXTRA_ROBUST];

/** The pretty-printer options of a request: the verbosity preset, then delab_options over it. */
export function printingOptions(
  verbosity: number | undefined,
  delab: Record<string, OptionValue> | undefined,
): Record<string, OptionValue> {
  return { ...(VERBOSITY_PRESETS[verbosity ?? 0] ?? {}), ...(delab ?? {}) };
}

/** Elaboration options of a goal-printing elaboration: the request's own, plus its printing options. */
export function withPrinting<R extends { verbosity?: number; delab_options?: Record<string, OptionValue> | undefined }>(
  req: R,
): R & { printing: Record<string, OptionValue> } {
  return { ...req, printing: printingOptions(req.verbosity, req.delab_options) };
}
