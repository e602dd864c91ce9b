/**
 * Lean's messages → the spec's message set: strings `<file>:<line>:<column>: <severity>: <text>`,
 * sorted by position and bucketed by severity. The tools' output layer: the backend hands
 * over Lean messages only.
 */
import type { LeanMessage } from '../backend/index.ts';
import { emptyMessages, type MessageSet } from '../contract/common.ts';

/** The file name in message prefixes: content arrives as text, as with `lean --stdin`. */
export const MESSAGE_FILE = '<stdin>';

export function formatMessage(m: LeanMessage, file = MESSAGE_FILE): string {
  return `${file}:${m.pos.line}:${m.pos.column}: ${m.severity}: ${m.text}`;
}

/** Sort by position and bucket into the spec's message set. */
export function toMessageSet(messages: readonly LeanMessage[], file = MESSAGE_FILE): MessageSet {
  const set = emptyMessages();
  const sorted = [...messages].sort((a, b) => a.pos.line - b.pos.line || a.pos.column - b.pos.column);
  for (const m of sorted) {
    const s = formatMessage(m, file);
    if (m.severity === 'error') set.errors.push(s);
    else if (m.severity === 'warning') set.warnings.push(s);
    else set.infos.push(s);
  }
  return set;
}
