/**
 * The recorded index's data model: one item per command or declaration Lean was given, with
 * what Lean printed for it. Items come from four kinds of recording under ../shared
 * (test/shared-data.ts): the community REPL's test transcripts (`repl/<tag>/`, and the older
 * `repl-transcripts/` copy, and forks' `repl-forks/<owner>/<tag>/test/`), `#guard_msgs` docstrings (Batteries, Lean 4's
 * `tests/lean/run`, Mathlib's, Plausible's and Aesop's tests), command-line outputs (`*.lean.expected.out`,
 * `*.lean.out.expected`) and Kimina Lean Server answers (`kimina/`: the REPL responses it returned).
 */

export type Severity = 'error' | 'warning' | 'info' | 'trace';

export interface RecordedPos {
  line: number;
  column: number;
}

export interface RecordedMessage {
  severity: Severity;
  text: string;
  /** Where Lean put it (REPL and command-line recordings; `#guard_msgs` records no positions). */
  pos?: RecordedPos | undefined;
  endPos?: RecordedPos | undefined;
  /** The message's class (classes.ts); 'other' when no rule names it. */
  cls: string;
  /** Command-line recordings: the message exactly as Lean printed it (head line and text). */
  printed?: string | undefined;
  /** Which wording of the class (e.g. the quote style of `declaration uses 'sorry'`), when it has several. */
  variant?: string | undefined;
}

export type RecordedSource = 'repl' | 'guard_msgs' | 'cli' | 'kimina';

export interface RecordedItem {
  source: RecordedSource;
  /** A tag (`v4.28.0`) where the recording says which; else the repository and commit (`lean4@5d43ac9`). */
  version: string;
  /** Path under the shared directory. */
  file: string;
  /** 1-based line of the input in `file` (the request in a `.in`, the command after `#guard_msgs`, the message in a CLI output). */
  line: number;
  /** The command or declaration sent (a CLI output: its file's name; the input is not recorded beside it). */
  input: string;
  messages: RecordedMessage[];
  /** Goals Lean printed: at each `sorry` (REPL `sorries`), after a proof step, or inside `unsolved goals`. */
  goals: string[];
  /** REPL recordings only: the request and response exactly as recorded. */
  request?: Record<string, unknown>;
  response?: unknown;
  /** `#guard_msgs` filters such as `(drop info)`: some messages were not recorded. */
  filter?: string | undefined;
}
