/**
 * The texts Lean prints that tools read, per toolchain version, each with the source it is
 * read from. One place, so a toolchain that changes a text changes one line (and the doctor,
 * `npm run lean:doctor`, checks each of them against the installed Lean).
 */
import { toolchainTag } from '../envs/config.ts';

/** `[major, minor, patch, rc]` of a toolchain (`rc` Infinity for a release); undefined when unreadable. */
export function toolchainVersion(toolchain: string): [number, number, number, number] | undefined {
  const m = /^v(\d+)\.(\d+)\.(\d+)(?:-rc(\d+))?$/.exec(toolchainTag(toolchain) ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? Infinity : Number(m[4])] : undefined;
}

/** Is `toolchain` at least `major.minor.patch-rc<rc>` (rc Infinity: the release)? Unknown versions answer `undefined`. */
export function atLeast(toolchain: string, want: [number, number, number, number]): boolean | undefined {
  const v = toolchainVersion(toolchain);
  if (!v) return undefined;
  for (let i = 0; i < 4; i++) if (v[i] !== want[i]) return v[i]! > want[i]!;
  return true;
}

/**
 * The unused-variable linter's warning [lean4 v4.24.0 … v4.30.0: src/Lean/Linter/UnusedVariables.lean,
 * `logLint linter.unusedVariables declStx m!"unused variable \`{userName}\`"`]. From Lean
 * v4.31.0-rc1 it reads "Variable name `y` is not explicitly referenced." — the REPL's own
 * test/variables.expected.out has the old text at REPL tags v4.24.0..v4.30.0 and the new one
 * from v4.31.0-rc1 (and at v4.33.0-rc2, repl-transcripts/variables.expected.out). Both are
 * followed by hints and `Note: This linter can be disabled …`.
 */
const UNUSED_OLD = /^unused variable `([^`]+)`/;
const UNUSED_NEW = /^Variable name `([^`]+)` is not explicitly referenced\./;

/** The variable an unused-variable warning names, by the environment's version (both forms when unknown). */
export function unusedVariableName(text: string, toolchain: string): string | undefined {
  const newer = atLeast(toolchain, [4, 31, 0, 1]);
  const forms = newer === undefined ? [UNUSED_NEW, UNUSED_OLD] : newer ? [UNUSED_NEW] : [UNUSED_OLD];
  for (const re of forms) {
    const m = re.exec(text);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * `#print axioms` [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`]:
 * `'{constName}' depends on axioms: [a, b]` or `'{constName}' does not depend on any axioms`;
 * the list is a formatted `List Name` and may wrap onto several lines (`[propext,\n Classical.choice]`).
 */
export const AXIOMS_RE = /^'(.+)' (?:depends on axioms: \[(.*)\]|does not depend on any axioms)/s;

/**
 * `constName` is printed with `MessageData.ofName`, so a private declaration shows its real
 * name `_private.<module>.0.<name>` [lean4 v4.28.0: src/Lean/Modifiers.lean, `mkPrivateName`,
 * through src/Lean/PrivateName.lean, `mkPrivateNameCore`: the private prefix, the module name, then the
 * numeric component 0]; the declaration's own name
 * is what follows that `0`. The REPL's module name may be anonymous (`_private.0.x`).
 */
export function userConstName(printed: string): string {
  const m = /^_private\.(?:.*?\.)?0\.(.+)$/.exec(printed);
  return m ? m[1]! : printed;
}

/**
 * The question asked about a declaration's axioms. Newer toolchains print the axioms with
 * `MessageData.ofConstName`, which follows the user's `pp.fullNames` [lean4 src/Lean/Elab/Print.lean,
 * `printAxiomsOf`: `axioms.qsort Name.lt |>.map MessageData.ofConstName`, in the versions whose `#print axioms`
 * refuses a `module` header; src/Lean/Message.lean, `ofConstName`: "Otherwise, pretty prints using the current
 * user setting for `pp.fullNames`"], so after `open Classical` the list could read `choice` and pass for a
 * foreign axiom: `pp.fullNames` is set for the command. The declaration is addressed as `_root_.<name>`, which
 * Lean resolves exactly, private declarations included [lean4 src/Lean/ResolveName.lean, `resolveExact`: "We also
 * allow `_root` when accessing private declarations"], so content that ends inside a namespace (`namespace A`
 * with no `end`) does not turn `#print axioms A.x` into a question about `A.A.x`.
 */
export function printAxiomsCommand(fullName: string): string {
  const name = fullName.startsWith('_root_.') ? fullName : `_root_.${fullName}`;
  return `set_option pp.fullNames true in #print axioms ${name}`;
}

/** `{'name' → axioms}` from one `#print axioms` info text; undefined when it is not one. */
export function parseAxioms(text: string): { name: string; axioms: string[] } | undefined {
  const m = AXIOMS_RE.exec(text);
  if (!m) return undefined;
  return {
    name: userConstName(m[1]!),
    axioms: m[2]
      ? m[2]
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean)
      : [],
  };
}

/**
 * Options under which goals print as statements that elaborate again: `pp.proofs` (else
 * proofs inside types print as `⋯`) and `pp.numericTypes` (else `(2 : ℝ)` prints as `2` and
 * re-elaborates as a `Nat`) [lean4 v4.28.0: src/Lean/PrettyPrinter/Delaborator/Options.lean,
 * `register_builtin_option pp.proofs` / `pp.numericTypes`].
 */
export const GOAL_PRINTING_OPTIONS: Record<string, boolean> = { 'pp.proofs': true, 'pp.numericTypes': true };

/**
 * Error texts repair_proofs and sorry2lemma act on, in one place so the doctor checks the same
 * patterns against the installed Lean. `unsolved goals` then the goals [lean4 v4.28.0:
 * src/Lean/Elab/Term.lean, `reportUnsolvedGoals` → `MVarId.logUnassignedUsingErrorInfos`… `m!"unsolved
 * goals\n{goalsToMessageData goals}"`]; `no goals` / `no goals to be proved` [lean4 v4.28.0:
 * src/Lean/Elab/Tactic/Basic.lean, `throwNoGoalsToBeProved`]; unknown identifiers in both spellings
 * (recorded: ../shared/recorded/repl/<tag>/dup_msg.expected.out); option errors (thin in the
 * recordings: the doctor checks them).
 */
export const UNSOLVED_GOALS_RE = /^unsolved goals/;
export const NO_GOALS_RE = /^no goals( to be proved)?/i;
export const UNKNOWN_NAME_RE = /unknown identifier|unknown universe level/i;
export const UNKNOWN_OPTION_RE = /unknown option|invalid option|unknown configuration option/i;
