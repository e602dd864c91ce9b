/** The built-in tool implementations. A tool absent here answers 501 not_implemented. */
import type { ToolTable } from './types.ts';

export function builtinTools(): ToolTable {
  return {};
}
