/**
 * The property-based counter-example search of disprove: Plausible's `plausible` tactic run on a
 * theorem's own statement, and what its messages say. Plausible tests the goal it is given and reports
 * a counter-example to *that* goal, so it runs on the theorem, not on its negation (on `¬ P` it can only
 * admit the goal through `sorry` or report a counter-example to `¬ P`).
 *
 * What it prints [plausible v4.21.0 … v4.30.0-rc2: Plausible/Testable.lean, `Testable.check` and
 * `formatFailure`; Plausible/Tactic.lean, the `plausible` elaborator]:
 *   - a counter-example: an error, `Found a counter-example!` alone in quiet mode, otherwise
 *     `\n===================\nFound a counter-example!\n<var> := <value> …\nissue: <prop> does not hold\n(<n> shrinks)\n-------------------`
 *     (recorded: ../shared/recorded/mathlib/MathlibTest/slim_check.lean; quiet:
 *     ../shared/recorded/plausible/v4.28.0/Test/Tactic.lean);
 *   - none found: the info `Unable to find a counter-example`, and the goal is admitted (a `sorry` warning);
 *   - gave up: the warning `Gave up after failing to generate values that fulfill the preconditions <n> times.`;
 *   - no `Testable` instance: the error `Failed to create a \`testable\` instance for …`.
 * A counter-example is found by running compiled code on sampled values: it is evidence, not a Lean proof
 * of the negation, so disprove reports it and lists the theorem as disproved only when a terminal tactic
 * proves the negation.
 */
import type { LeanMessage } from '../backend/index.ts';

export const COUNTER_EXAMPLE = 'Found a counter-example!';
const NONE_FOUND = 'Unable to find a counter-example';
const GAVE_UP = /^Gave up after failing to generate values\b/;

/**
 * A fixed seed: the same request gets the same samples, so a cached answer and a fresh one agree
 * (`randomSeed : Option Nat := none` draws a new seed per run [plausible v4.28.0: Plausible/Testable.lean,
 * `Configuration`]; the config syntax as Mathlib's tests write it: ../shared/recorded/mathlib/MathlibTest/slim_check.lean).
 */
export const PLAUSIBLE_TACTIC = 'plausible (config := { randomSeed := some 257 })';

export type SearchOutcome =
  | { kind: 'counterexample'; report: string; issues: string[]; shrinks: number | undefined }
  | { kind: 'none' }
  | { kind: 'gave-up'; text: string }
  | { kind: 'failed'; text: string };

const firstLines = (text: string, n: number) => text.trim().split('\n').slice(0, n).join('\n');

/** What one run of `plausible` answered, from its messages (undefined: it was not run). */
export function readSearch(messages: readonly LeanMessage[] | undefined): SearchOutcome | undefined {
  if (messages === undefined) return undefined;
  for (const m of messages) {
    if (m.severity !== 'error') continue;
    const lines = m.text.split('\n').map((l) => l.trim());
    if (!lines.includes(COUNTER_EXAMPLE)) continue;
    const shrinks = lines.map((l) => /^\((\d+) shrinks\)$/.exec(l)?.[1]).find((x) => x !== undefined);
    return {
      kind: 'counterexample',
      report: m.text.trim(),
      issues: lines.filter((l) => l.startsWith('issue: ')).map((l) => l.slice('issue: '.length)),
      shrinks: shrinks === undefined ? undefined : Number(shrinks),
    };
  }
  const error = messages.find((m) => m.severity === 'error');
  if (error) return { kind: 'failed', text: firstLines(error.text, 3) };
  const gaveUp = messages.find((m) => m.severity === 'warning' && GAVE_UP.test(m.text.trim()));
  if (gaveUp) return { kind: 'gave-up', text: gaveUp.text.trim() };
  if (messages.some((m) => m.severity === 'info' && m.text.trim() === NONE_FOUND)) return { kind: 'none' };
  return { kind: 'failed', text: 'plausible answered nothing it is known to answer' };
}

/** The search's outcome in a few words, for a failure's reason list. */
export function searchSummary(o: SearchOutcome | undefined): string {
  if (o === undefined) return 'plausible: not run';
  switch (o.kind) {
    case 'counterexample':
      return `plausible: ${COUNTER_EXAMPLE}`;
    case 'none':
      return `plausible: ${NONE_FOUND}`;
    case 'gave-up':
      return `plausible: ${o.text}`;
    case 'failed':
      return `plausible could not test the statement: ${o.text}`;
  }
}
