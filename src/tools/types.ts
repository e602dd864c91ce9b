/** What a tool implementation is: a pure orchestration of syntax/ and backend/ for one request. */
import type { Log } from '../log.ts';
import type { LeanRunner } from '../backend/index.ts';
import type { ToolName, ToolRequest, ToolResponse } from '../contract/tools.ts';
import type { EnvironmentConfig } from '../envs/config.ts';

export interface ToolContext {
  env: EnvironmentConfig;
  /** Aborts at the deadline or when the client goes away; Lean work must stop on it. */
  signal: AbortSignal;
  log: Log;
  /** Elaboration on the environment's warm Lean sessions. */
  lean: LeanRunner;
  /** Progress for streaming clients (no-op for plain HTTP). */
  progress: (event: { stage: string; done?: number; total?: number }) => void;
}

export interface ToolImpl<T extends ToolName> {
  /** Whether this request needs Lean elaboration (for example, false when reparse is false). */
  needsLean(req: ToolRequest<T>): boolean;
  run(req: ToolRequest<T>, ctx: ToolContext): Promise<ToolResponse<T>>;
  /** A message when the request asks for an option this build does not implement (501, decided before availability). */
  unsupported?(req: ToolRequest<T>): string | undefined;
  /** Whether a response may be cached (default: unless it reports a Lean failure). */
  cacheable?(res: ToolResponse<T>): boolean;
}

export type ToolTable = { [T in ToolName]?: ToolImpl<T> };
