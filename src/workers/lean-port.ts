/**
 * Lean over a MessagePort: a Lean-backed tool runs on a worker thread, so
 * its parsing and post-processing never hold the event loop, while Lean itself stays with the
 * main thread's backend (its pools, processes and sessions). The worker's `ctx.lean` is a proxy
 * that posts each `elaborate` call to the main thread; the main thread runs it on the backend
 * with the request's own signal and posts back the result, the backend's progress, or the error.
 *
 * Errors: a LeanFailure (a finding the tool reports) is rebuilt on the worker as one, since the
 * tool tells it apart by its class; any other error stays on the main thread, and the worker
 * gets a reference (MainThreadError) that comes back in the task's outcome, so the pipeline
 * rethrows the original object (its class, code and cause intact) as if the tool ran here.
 */
import type { MessagePort } from 'node:worker_threads';
import { LeanFailure, type ElabJob, type ElabResult, type LeanRunner } from '../backend/index.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import type { ToolContext } from '../tools/types.ts';

/** A LeanFailure as plain data (a class does not survive the thread boundary). */
export interface LeanFailureData {
  fault: string;
  message: string;
  stderrTail: string;
}

/** Worker → main. */
type ToMain =
  | { type: 'elaborate'; id: number; job: ElabJob; progress: boolean }
  | { type: 'progress'; event: Parameters<ToolContext['progress']>[0] }
  /** The tool is done: answered once every message before it is handled (see drain). */
  | { type: 'drain' };

/** Main → worker. */
type ToWorker =
  | { type: 'result'; id: number; result: ElabResult }
  | { type: 'elab-progress'; id: number; done: number; total: number }
  | { type: 'failure'; id: number; failure: LeanFailureData }
  | { type: 'error'; id: number; ref: number; message: string }
  | { type: 'drained'; id: -1 };

export const failureData = (e: LeanFailure): LeanFailureData => ({
  fault: e.fault,
  message: e.message,
  stderrTail: e.stderrTail,
});

export const failureOf = (d: LeanFailureData): LeanFailure => new LeanFailure(d.fault, d.message, d.stderrTail);

/** An error the main thread's backend raised, by reference: the pipeline rethrows the original. */
export class MainThreadError extends Error {
  constructor(
    readonly ref: number,
    message: string,
  ) {
    super(message);
    this.name = 'MainThreadError';
  }
}

export interface LeanService {
  /** The original of an error the worker holds by reference (MainThreadError.ref). */
  errorOf(ref: number): unknown;
  /** Stops serving: later messages (a progress after the result) are dropped. */
  close(): void;
}

/**
 * The main thread's side: serves `port`'s elaborate calls on `lean` for `env`, with `signal`
 * (the request's deadline or its client going away) and relays the tool's progress.
 */
export function serveLean(
  port: MessagePort,
  lean: LeanRunner,
  env: EnvironmentConfig,
  signal: AbortSignal,
  progress: ToolContext['progress'] | undefined,
): LeanService {
  const errors = new Map<number, unknown>();
  let closed = false;
  const post = (m: ToWorker) => {
    if (!closed) port.postMessage(m);
  };
  const elaborate = (id: number, job: ElabJob, wantsProgress: boolean) => {
    // Only a stream client asks (leanProxy's withProgress): one message per command, as the stream sends.
    const onProgress = wantsProgress
      ? (done: number, total: number) => post({ type: 'elab-progress', id, done, total })
      : undefined;
    lean.elaborate(env, job, { signal, ...(onProgress ? { progress: onProgress } : {}) }).then(
      (result) => post({ type: 'result', id, result }),
      (e: unknown) => {
        if (e instanceof LeanFailure) return post({ type: 'failure', id, failure: failureData(e) });
        errors.set(id, e);
        post({ type: 'error', id, ref: id, message: (e as Error)?.message ?? String(e) });
      },
    );
  };
  port.on('message', (m: ToMain) => {
    if (closed) return;
    if (m.type === 'elaborate') elaborate(m.id, m.job, m.progress);
    else if (m.type === 'progress') progress?.(m.event);
    else post({ type: 'drained', id: -1 });
  });
  return {
    errorOf: (ref) => errors.get(ref),
    close: () => {
      closed = true;
      port.close();
    },
  };
}

interface Pending {
  resolve: (r: ElabResult) => void;
  reject: (e: unknown) => void;
  progress: ((done: number, total: number) => void) | undefined;
}

/**
 * The worker's side: a LeanRunner and a progress callback that talk to the main thread over
 * `port`; `withProgress` false (nobody listens, as over plain HTTP) sends no progress at all.
 */
export function leanProxy(
  port: MessagePort,
  withProgress: boolean,
): { lean: LeanRunner; progress: ToolContext['progress']; drain: () => Promise<void> } {
  const pending = new Map<number, Pending>();
  let next = 0;
  let drained: (() => void) | undefined;
  port.on('message', (m: ToWorker) => {
    if (m.type === 'drained') return drained?.();
    const p = pending.get(m.id);
    if (!p) return;
    if (m.type === 'elab-progress') return p.progress?.(m.done, m.total);
    pending.delete(m.id);
    if (m.type === 'result') p.resolve(m.result);
    else if (m.type === 'failure') p.reject(failureOf(m.failure));
    else p.reject(new MainThreadError(m.ref, m.message));
  });
  const lean: LeanRunner = {
    // The env is the main thread's (the request's); the signal never fires here, since
    // cancelling the task terminates this thread and the main thread stops Lean itself.
    elaborate: (_env, job, ctx) =>
      new Promise<ElabResult>((resolve, reject) => {
        const id = next++;
        const progress = withProgress ? ctx.progress : undefined;
        pending.set(id, { resolve, reject, progress });
        port.postMessage({ type: 'elaborate', id, job, progress: progress !== undefined } satisfies ToMain);
      }),
  };
  const progress: ToolContext['progress'] = withProgress
    ? (event) => port.postMessage({ type: 'progress', event } satisfies ToMain)
    : () => {};
  // The result travels on Piscina's own port: without this, the tool's last progress could
  // arrive after it (two ports keep no order between them) and be dropped.
  const drain = () =>
    new Promise<void>((resolve) => {
      drained = resolve;
      port.postMessage({ type: 'drain' } satisfies ToMain);
    });
  return { lean, progress, drain };
}
