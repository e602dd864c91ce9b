/** The built-in tool implementations. A tool absent here answers 501 not_implemented. */
import { check } from './check.ts';
import type { ToolTable } from './types.ts';

export function builtinTools(): ToolTable {
  return { check };
}
