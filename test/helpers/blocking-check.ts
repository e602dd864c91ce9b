/** A tool double that never finishes on its own, for the cancellation tests. */
import type { ToolTable } from '../../src/tools/types.ts';

/**
 * A `check` that runs until its signal aborts, reporting progress on the way; records what it
 * saw (`started` resolves when a run has begun): the MCP tests' way to hold a call open.
 */
export function blockingCheck() {
  const seen = { started: 0, aborted: 0, reason: undefined as unknown };
  let onStart: () => void = () => {};
  const started = new Promise<void>((r) => (onStart = r));
  const tools: ToolTable = {
    check: {
      needsLean: () => false,
      run: (_req, ctx) =>
        new Promise((resolve, reject) => {
          seen.started++;
          ctx.progress({ stage: 'elaborating', done: 1, total: 3 });
          ctx.progress({ stage: 'elaborating', done: 3, total: 3 });
          onStart();
          if (ctx.signal.aborted) return reject(ctx.signal.reason);
          ctx.signal.addEventListener('abort', () => {
            seen.aborted++;
            seen.reason = ctx.signal.reason;
            reject(ctx.signal.reason);
          });
          void resolve;
        }),
    },
  };
  return { tools, seen, started };
}
