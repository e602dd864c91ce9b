/**
 * Lean's unused-variable linter reports a `variable` binder when the binders are
 * elaborated again, which the REPL does at the next command: the warning arrives in a later input's
 * response, at the offsets it had in the earlier `variable` input. Recorded: ../shared/recorded/repl/<tag>/
 * variables.{in,expected.out} (v4.24.0 … v4.33.0-rc2): `variable (x y : Nat)` answers nothing, and the
 * response of the next input `variable (f : Nat → Nat)` carries ``unused variable `y` `` at 1:12–1:13, the
 * position of `y` in the first input. Such a warning is moved back to the `variable` command whose text has
 * the variable at that position.
 */
import type { LeanMessage } from '../backend/index.ts';
import { unusedVariableName } from './lean-texts.ts';

export interface SentUnit {
  /** Where the unit starts in the content (its messages' origin). */
  origin: { line: number; column: number };
  text: string;
  /** Whether it is a `variable` command. */
  variable: boolean;
}

/** The text of `unit` at `pos`, relative to the unit (1-based line; column relative to the unit's first line). */
function textAt(unit: SentUnit, pos: { line: number; column: number }, length: number): string | undefined {
  const rel = pos.line - unit.origin.line;
  if (rel < 0) return undefined;
  const line = unit.text.split('\n')[rel];
  if (line === undefined) return undefined;
  const col = rel === 0 ? pos.column - unit.origin.column : pos.column;
  return col < 0 ? undefined : line.slice(col, col + length);
}

/**
 * The message as it should be filed: unchanged, or (an unused-variable warning that does not name what
 * stands at its position in `unit`) moved onto the latest earlier `variable` unit where it does.
 */
export function refileVariableWarning(
  m: LeanMessage,
  unit: SentUnit,
  earlier: readonly SentUnit[],
  toolchain: string,
): LeanMessage {
  if (m.severity !== 'warning') return m;
  const name = unusedVariableName(m.text, toolchain);
  if (!name || textAt(unit, m.pos, name.length) === name) return m;
  const shift = (p: { line: number; column: number }, to: SentUnit) => {
    const rel = p.line - unit.origin.line;
    return rel === 0
      ? { line: to.origin.line, column: to.origin.column + (p.column - unit.origin.column) }
      : { line: to.origin.line + rel, column: p.column };
  };
  for (let i = earlier.length - 1; i >= 0; i--) {
    const u = earlier[i]!;
    if (!u.variable) continue;
    const pos = shift(m.pos, u);
    if (textAt(u, pos, name.length) !== name) continue;
    return { ...m, pos, endPos: m.endPos ? shift(m.endPos, u) : undefined };
  }
  return m;
}
