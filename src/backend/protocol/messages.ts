/**
 * REPL messages → the spec's strings `<file>:<line>:<column>: <severity>: <text>`, with
 * positions moved from the command the REPL saw to the content the response returns.
 */
import { emptyMessages, type MessageSet } from '../../contract/common.ts';
import type { ReplMessage, ReplPos } from './schema.ts';

/** The file name in message prefixes: content arrives as text, as with `lean --stdin`. */
export const MESSAGE_FILE = '<stdin>';

/** Where a command's text starts in the returned content (1-based line, code-point column). */
export interface Origin {
  line: number;
  column: number;
}

/** A REPL position inside a command → the same place in the whole content. Line 0 (no position) stays at the origin. */
export function shiftPos(p: ReplPos, origin: Origin): ReplPos {
  if (p.line === 0) return { line: origin.line, column: origin.column };
  return p.line === 1 ? { line: origin.line, column: origin.column + p.column } : { line: origin.line + p.line - 1, column: p.column };
}

export interface LeanMessage {
  severity: 'error' | 'warning' | 'info';
  pos: ReplPos;
  endPos: ReplPos | undefined;
  text: string;
}

export function toLeanMessage(m: ReplMessage, origin: Origin): LeanMessage {
  return {
    severity: m.severity === 'trace' ? 'info' : m.severity,
    pos: shiftPos(m.pos, origin),
    endPos: m.endPos ? shiftPos(m.endPos, origin) : undefined,
    text: m.data,
  };
}

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
