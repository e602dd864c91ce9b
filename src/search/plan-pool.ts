/**
 * Where `goal.start` plans its command (start.ts). Without a theorem the plan reads the header
 * only (a short prefix: headerEnd, and the header's lines), so it runs on the event loop. With
 * a theorem it parses the whole content to find the declaration, which takes whole seconds
 * for a content of megabytes:
 * above `inlineChars` that runs on one worker thread of its own, started on first use, and the
 * start's deadline (a `timeout` error) or the client going away stops it by terminating the thread. A small content
 * is planned inline: a thread's start would cost more than its parse.
 */
import { Piscina } from 'piscina';
import type { EnvironmentConfig } from '../envs/config.ts';
import { relayedError, serviceError } from '../errors.ts';
import { PROJECT_ROOT } from '../project-root.ts';
import { workerEntry } from '../util/worker-entry.ts';
import { runPlan, type PlanOutcome, type PlanTask } from './plan-task.ts';
import type { StartPlan } from './start.ts';
import { deadlineSignal } from '../util/timeout-signal.ts';

/** Contents up to this many characters are planned on the event loop (a parse of well under a millisecond per KiB). */
export const INLINE_PLAN_CHARS = 64 * 1024;

const workerFile = () => workerEntry(PROJECT_ROOT, 'search-plan-worker.js', 'src/search/plan-worker.mjs');

export class PlanPool {
  #pool: Piscina<PlanTask, PlanOutcome> | undefined;

  constructor(readonly inlineChars = INLINE_PLAN_CHARS) {}

  async plan(
    content: string,
    env: Pick<EnvironmentConfig, 'imports'>,
    ignoreImports: boolean,
    theorem: string | undefined,
    signal: AbortSignal,
    ms: number,
  ): Promise<StartPlan> {
    const task: PlanTask = { content, imports: env.imports, ignoreImports, theorem };
    if (theorem === undefined || content.length <= this.inlineChars) return settle(runPlan(task));
    const deadline = deadlineSignal(signal, ms);
    try {
      return settle(await this.#offLoop(task, deadline.signal));
    } catch (e) {
      if (deadline.timedOut && !signal.aborted)
        throw serviceError('timeout', 'deadline', { seconds: Math.round(ms / 100) / 10 });
      throw e;
    } finally {
      deadline.clear();
    }
  }

  async #offLoop(task: PlanTask, signal: AbortSignal): Promise<PlanOutcome> {
    this.#pool ??= new Piscina<PlanTask, PlanOutcome>({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 60_000,
    });
    try {
      return await this.#pool.run(task, { signal });
    } catch (e) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : serviceError('cancelled', 'by_client');
      throw serviceError('internal', 'unexpected', {}, { cause: e });
    }
  }

  async destroy(): Promise<void> {
    const p = this.#pool;
    this.#pool = undefined;
    await p?.destroy();
  }
}

function settle(out: PlanOutcome): StartPlan {
  if (out.ok) return out.plan;
  if (out.code)
    throw relayedError({ code: out.code, message: out.message, ...(out.details ? { details: out.details } : {}) });
  throw serviceError('internal', 'unexpected', {}, { cause: new Error(out.message) });
}
