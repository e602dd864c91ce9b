/**
 * Lean's messages → the spec's message set, printed as AXLE prints them: Lean's own
 * `Message.toString` with end positions on and the file name `-` [lean4 src/Lean/Message.lean,
 * `mkErrorStringWithPos` and `Message.toString (includeEndPos := true)` / `SerialMessage.toString`, read in
 * the versions the code index stores (not pinned to a tag); the recorded CLI outputs of Lean's own tests,
 * ../shared/recorded/lean4/tests/elab*, print the same `file:l:c-l:c: severity: text` form]: an error or warning is
 * `-:<line>:<col>-<endLine>:<endCol>: <severity>: <text>`
 * (`-<endLine>:<endCol>` only when Lean gives an end), an info is its text alone (`.information => pure ()`),
 * and every string ends with one newline (added unless the text already ends with one). AXLE's
 * CHANGELOG v1.1.0 turned `includeEndPos` on; its docs show `-:3:6-3:11: warning: declaration uses
 * 'sorry'\n` (docs/tools/sorry2lemma.md) and the info `4\n` (docs/tools/check.md). Lines are 1-based, columns
 * 0-based code points, on the content the response returns. The REPL's JSON carries no error name
 * [repl v4.28.0: REPL/JSON.lean, `Message.of`: severity, positions and `data` only], so the
 * `error(<name>):` label newer Lean prints for named errors cannot be reproduced.
 * Sorted by position and bucketed by severity; the backend hands over Lean messages only.
 */
import type { LeanMessage } from '../backend/index.ts';
import { emptyMessages, type MessageSet } from '../contract/common.ts';

/** The file name in message prefixes: AXLE's `-` (content arrives as text, not as a file). */
export const MESSAGE_FILE = '-';

export function formatMessage(m: LeanMessage, file = MESSAGE_FILE): string {
  let s = m.text;
  if (m.severity !== 'info') {
    const end = m.endPos ? `-${m.endPos.line}:${m.endPos.column}` : '';
    s = `${file}:${m.pos.line}:${m.pos.column}${end}: ${m.severity}: ${s}`;
  }
  return s.endsWith('\n') ? s : `${s}\n`;
}

/** Sort by position and bucket into the spec's message set. */
export function toMessageSet(messages: readonly LeanMessage[], file = MESSAGE_FILE): MessageSet {
  const set = emptyMessages();
  // Nothing to order (the usual answer of a proof that checks): no copy, no sort.
  if (messages.length === 0) return set;
  const sorted = [...messages].sort((a, b) => a.pos.line - b.pos.line || a.pos.column - b.pos.column);
  for (const m of sorted) {
    const s = formatMessage(m, file);
    if (m.severity === 'error') set.errors.push(s);
    else if (m.severity === 'warning') set.warnings.push(s);
    else set.infos.push(s);
  }
  return set;
}
