/** What a tool implementation is: a pure orchestration of syntax/ and backend/ for one request. */
import type { Log } from '../log.ts';
import type { LeanFailure, LeanRunner } from '../backend/index.ts';
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
  /**
   * Lean itself failed (crash, memory, garbage) during this request: the tool reports it in its
   * response, and the caller learns it here, typed, so such a result is never cached.
   */
  leanFailed?: (failure: LeanFailure) => void;
  /**
   * The longest response this request may produce (characters; `limits.responseFactor` × the
   * request). A tool that can predict or accumulate its output size refuses early
   * (OutputLimitError); every response is measured after the run as well.
   */
  maxResponseChars?: number;
}

export interface ToolImpl<T extends ToolName> {
  /** Whether this request needs Lean elaboration (for example, false when reparse is false). */
  needsLean(req: ToolRequest<T>): boolean;
  run(req: ToolRequest<T>, ctx: ToolContext): Promise<ToolResponse<T>>;
  /** Whether a response may be cached (default: yes, unless Lean failed during the run, see ToolContext.leanFailed). */
  cacheable?(res: ToolResponse<T>): boolean;
}

export type ToolTable = { [T in ToolName]?: ToolImpl<T> };
