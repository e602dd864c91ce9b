/**
 * `#guard_msgs` docstrings → items. The docstring before `#guard_msgs in` holds the messages of
 * the command after it, each starting with its severity (`error:`, `warning:`, `info:`,
 * `trace:`), separated by lines `---`; a trailing space is shown as `⏎` [lean4 v4.28.0:
 * src/Lean/Elab/GuardMsgs.lean, `messageToStringWithoutPos` and the `---` join in `elabGuardMsgs`].
 * Positions are not recorded.
 */
import { classify, goalsOfUnsolved } from './classes.ts';
import type { RecordedItem, RecordedMessage, Severity } from './types.ts';

const GUARD = /^#guard_msgs\b\s*(\([^)]*\))?\s*in\b/;

/** The messages of one docstring body. */
export function docstringMessages(body: string, command: string): RecordedMessage[] {
  const out: RecordedMessage[] = [];
  for (const block of body.split(/\n---\n/)) {
    const m = /^(error|warning|info|trace)(?:\([^)]*\))?: ?/.exec(block.trim());
    if (!m) continue;
    const severity = m[1] as Severity;
    const text = block.trim().slice(m[0].length).replace(/⏎/g, ' ');
    out.push({ severity, text, ...classify(severity, text, command) });
  }
  return out;
}

/** The command after `#guard_msgs … in` (nested `#guard_msgs … in` skipped): up to the next blank line. */
function commandAfter(lines: readonly string[], from: number): { text: string; line: number } {
  let i = from;
  while (i < lines.length && GUARD.test(lines[i]!.trim())) i++;
  const start = i;
  const rest = lines[from]!.replace(GUARD, '').trim();
  if (rest && from === start - 1) return { text: rest, line: from + 1 };
  while (i < lines.length && lines[i]!.trim() !== '') i++;
  return { text: lines.slice(start, i).join('\n'), line: start + 1 };
}

/** The line where the doc comment opening at `from` closes: comments nest in Lean (`/- … -/` inside a docstring). */
function docEnd(lines: readonly string[], from: number): number {
  let depth = 0;
  for (let i = from; i < lines.length; i++) {
    const l = lines[i]!;
    for (let k = 0; k + 1 < l.length; k++) {
      if (l[k] === '/' && l[k + 1] === '-') {
        depth++;
        k++;
      } else if (l[k] === '-' && l[k + 1] === '/') {
        depth--;
        k++;
        if (depth === 0) return i;
      }
    }
  }
  return lines.length - 1;
}

export function guardMsgsItems(text: string, file: string, version: string): RecordedItem[] {
  const lines = text.split('\n');
  const items: RecordedItem[] = [];
  let doc: { body: string; endLine: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('/--')) {
      const end = docEnd(lines, i);
      const raw = lines.slice(i, end + 1).join('\n');
      doc = { body: raw.slice(3, raw.lastIndexOf('-/')), endLine: end };
      i = end;
      continue;
    }
    const g = GUARD.exec(l.trim());
    if (!g) {
      if (l.trim() !== '' && !l.trim().startsWith('--')) doc = undefined;
      continue;
    }
    const cmd = commandAfter(lines, i);
    items.push({
      source: 'guard_msgs',
      version,
      file,
      line: cmd.line,
      input: cmd.text,
      messages: doc ? docstringMessages(doc.body, cmd.text) : [],
      goals: [],
      filter: g[1],
    });
    for (const m of items[items.length - 1]!.messages) items[items.length - 1]!.goals.push(...goalsOfUnsolved(m.text));
    doc = undefined;
    while (i + 1 < lines.length && GUARD.test(lines[i + 1]!.trim())) i++;
  }
  return items;
}
