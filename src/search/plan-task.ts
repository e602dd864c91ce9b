/**
 * The plan worker's task (plan-pool.ts): `planStart` on a thread of its own, its errors as plain
 * data (a class does not survive the thread boundary).
 */
import type { EnvironmentConfig } from '../envs/config.ts';
import { isServiceError, serviceError, type ErrorCode, type ErrorDetail } from '../errors.ts';
import { SourceLimitError } from '../syntax/source.ts';
import { planStart, type StartPlan } from './start.ts';

export interface PlanTask {
  content: string;
  imports: EnvironmentConfig['imports'];
  ignoreImports: boolean;
  theorem: string | undefined;
}

export type PlanOutcome =
  | { ok: true; plan: StartPlan }
  | { ok: false; code: ErrorCode | undefined; message: string; details?: ErrorDetail[] | undefined };

export function runPlan(task: PlanTask): PlanOutcome {
  try {
    return { ok: true, plan: planStart(task.content, { imports: task.imports }, task.ignoreImports, task.theorem) };
  } catch (e) {
    // A source the model declines to build (its budget) is a problem of the input, as for the tools (tools/source-limits.ts).
    const se = isServiceError(e)
      ? e
      : e instanceof SourceLimitError
        ? serviceError('invalid_request', 'source_limit', { problem: e.message })
        : undefined;
    if (se) return { ok: false, code: se.code, message: se.message, details: se.details };
    return { ok: false, code: undefined, message: (e as Error)?.stack ?? String(e) };
  }
}

export default runPlan;
