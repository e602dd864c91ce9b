/**
 * The worker side of the structural pool: runs one tool on a worker thread, so its CPU time
 * never blocks the event loop: a tool that needs no Lean (the source model and text edits
 * only), or a Lean-backed one whose Lean calls go to the main thread over a port
 * (lean-port.ts). Errors come back as plain data (a class does not survive the thread boundary).
 */
import type { MessagePort } from 'node:worker_threads';
import { pino } from 'pino';
import type { LeanRunner } from '../backend/index.ts';
import type { ToolName } from '../contract/tools.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { isServiceError, type ErrorCode, type ErrorDetail } from '../errors.ts';
import { sourceLimitError } from '../tools/source-limits.ts';
import { builtinTools } from '../tools/index.ts';
import { checkResponseSize } from '../tools/response-bound.ts';
import type { ToolContext, ToolImpl } from '../tools/types.ts';
import { failureData, leanProxy, MainThreadError, type LeanFailureData } from './lean-port.ts';
import type { InputLimits } from '../admission/input-limits.ts';
import { MalformedBody, prepareRaw, requestFromRaw } from './raw-request.ts';

/** A request sent as its body's text (a large body: raw-request.ts), parsed and validated here. */
export interface RawBody {
  text: string;
  limits: InputLimits;
  /** Only validate and key it (RawPrepared back), not run the tool. */
  prepareOnly: boolean;
}

export interface StructuralTask {
  tool: ToolName;
  /** The validated request; absent when `raw` brings it as text. */
  request: unknown;
  raw?: RawBody | undefined;
  env: EnvironmentConfig;
  /** The response bound: a larger result is refused here, before it is copied to the main thread. */
  maxResponseChars?: number | undefined;
  /** A Lean-backed tool's line to the main thread's backend (lean-port.ts); absent: the tool needs no Lean. */
  lean?: MessagePort | undefined;
  /** Someone listens to the Lean-backed tool's progress (a stream client). */
  progress?: boolean | undefined;
}

export type StructuralOutcome = (
  | { ok: true; response: unknown }
  | {
      ok: false;
      code: ErrorCode | undefined;
      message: string;
      details?: ErrorDetail[] | undefined;
      /** The error is the main thread's own (lean-port.ts): rethrow that one. */
      mainError?: number | undefined;
      /** A raw body that is not JSON the daemon takes (raw-request.ts MalformedBody's reason). */
      malformed?: string | null | undefined;
    }
) & {
  /** The Lean failures the tool reported (ToolContext.leanFailed): its result is then not cached. */
  leanFailures?: LeanFailureData[];
};

const tools = builtinTools();
const log = pino({ level: 'silent' });
/** A structural run never reaches Lean: needsLean was false for this request. */
const noLean: LeanRunner = {
  elaborate: () => Promise.reject(new Error('a structural task asked for Lean')),
} as unknown as LeanRunner;

export default async function runStructural(task: StructuralTask): Promise<StructuralOutcome> {
  const impl = tools[task.tool] as ToolImpl<ToolName> | undefined;
  if (!impl)
    return {
      ok: false,
      code: 'not_implemented',
      message: `the tool ${task.tool} is not implemented by this daemon yet`,
    };
  const leanFailures: LeanFailureData[] = [];
  const outcome = await runTool(impl, task, leanFailures);
  return leanFailures.length > 0 ? { ...outcome, leanFailures } : outcome;
}

async function runTool(
  impl: ToolImpl<ToolName>,
  task: StructuralTask,
  leanFailures: LeanFailureData[],
): Promise<StructuralOutcome> {
  const viaPort = task.lean ? leanProxy(task.lean, task.progress === true) : undefined;
  // Cancellation terminates this thread (the pool replaces it), so the signal here never fires.
  const ctx: ToolContext = {
    env: task.env,
    signal: new AbortController().signal,
    log,
    lean: viaPort?.lean ?? noLean,
    progress: viaPort?.progress ?? (() => {}),
    leanFailed: (failure) => leanFailures.push(failureData(failure)),
    ...(task.maxResponseChars === undefined ? {} : { maxResponseChars: task.maxResponseChars }),
  };
  try {
    const raw = task.raw;
    if (raw?.prepareOnly) return { ok: true, response: prepareRaw(task.tool, raw.text, raw.limits) };
    const request = raw ? requestFromRaw(task.tool, raw.text, raw.limits) : task.request;
    const response = await impl.run(request as never, ctx);
    checkResponseSize(response, task.maxResponseChars);
    // A large body's answer goes back as text (raw-request.ts SerializedResult).
    return { ok: true, response: raw ? JSON.stringify(response) : response };
  } catch (e) {
    if (e instanceof MainThreadError) return { ok: false, code: undefined, message: e.message, mainError: e.ref };
    if (e instanceof MalformedBody)
      return { ok: false, code: 'malformed_json', message: e.message, malformed: e.reason };
    const se = isServiceError(e) ? e : sourceLimitError(e);
    if (se) return { ok: false, code: se.code, message: se.message, details: se.details };
    return { ok: false, code: undefined, message: (e as Error)?.stack ?? String(e) };
  } finally {
    if (viaPort && task.progress) await viaPort.drain();
    task.lean?.close();
  }
}
