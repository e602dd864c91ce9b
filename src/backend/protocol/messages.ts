/**
 * REPL messages → Lean messages on positions of the content the response returns (moved
 * from the command the REPL saw). The backend speaks only Lean: turning these into the
 * spec's strings is the tools' output layer (src/tools/messages.ts).
 */
import type { ReplMessage, ReplPos } from './schema.ts';

/** Where a command's text starts in the returned content (1-based line, code-point column). */
export interface Origin {
  line: number;
  column: number;
}

/** A REPL position inside a command → the same place in the whole content. Line 0 (no position) stays at the origin. */
export function shiftPos(p: ReplPos, origin: Origin): ReplPos {
  if (p.line === 0) return { line: origin.line, column: origin.column };
  return p.line === 1
    ? { line: origin.line, column: origin.column + p.column }
    : { line: origin.line + p.line - 1, column: p.column };
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
