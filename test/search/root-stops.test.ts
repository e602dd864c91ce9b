/**
 * A root command (`goal.start`, or a replay's) sent with a heartbeat budget below Lean's limit:
 * Lean stopping it at that budget is the request's timeout, whichever part of Lean stops it. The
 * elaborator's stop names the budget; the kernel's is the bare "(kernel) deterministic timeout"
 * [lean4 src/Lean/Message.lean, `Kernel.Exception.toMessageData`; recorded:
 * ../shared/recorded/lean4/tests/lean/run/kernel_maxheartbeats.lean, under `set_option maxHeartbeats 500`].
 * A typed lease double answers with the message text (process behaviour is not under test here).
 */
import t from 'tap';
import type { SessionLease } from '../../src/backend/lease.ts';
import { ServiceError } from '../../src/errors.ts';
import { runRoot } from '../../src/search/lean-steps.ts';
import { rootGroup } from '../../src/search/state.ts';

function leaseAnswering(text: (budget: number) => string, sent: string[]): SessionLease {
  return {
    pid: 1,
    sessionId: 1,
    process: 'p1',
    healthy: true,
    alive: true,
    contended: false,
    command: async (cmd, _signal, prepare) => {
      const p = prepare ? prepare(cmd) : { text: cmd, lines: 0 };
      sent.push(p.text);
      const budget = Number(/maxHeartbeats (\d+)/.exec(p.text)?.[1] ?? 0);
      const data = text(budget);
      return {
        env: 1,
        messages: [{ severity: 'error', pos: { line: 1, column: 0 }, data }],
        sorries: [],
        cached: false,
      };
    },
    step: async () => ({ type: 'error', value: { message: 'unused' } }),
    usage: () => ({ rssBytes: 0 }),
    release: () => {},
    destroy: () => {},
  };
}

const group = rootGroup('env', '', 'theorem a : True := by sorry', []);
// 1 s at 20,000 units per second: a budget well below Lean's default 200,000 (src/backend/heartbeats/max-heartbeats.ts).
const run = (lease: SessionLease) => runRoot(lease, group, 1_000, 20, new AbortController().signal);

for (const [what, text] of [
  ['the kernel', () => '(kernel) deterministic timeout'],
  [
    'the elaborator',
    (n: number) =>
      `(deterministic) timeout at \`whnf\`, maximum number of heartbeats (${n}) has been reached\nUse \`set_option maxHeartbeats <num>\` to set the limit.`,
  ],
] as const) {
  t.test(`a root command stopped by ${what} under the reduced budget is a timeout`, async (t) => {
    const sent: string[] = [];
    const err = await run(leaseAnswering(text, sent)).catch((e: unknown) => e);
    t.match(sent[0], /^set_option maxHeartbeats \d+ in/, 'the command went out with a budget');
    t.ok(
      err instanceof ServiceError && err.code === 'lean_timeout',
      `refused as a Lean timeout (AXLE's LeanTimeout) (got ${String(err)})`,
    );
  });
}

t.test('another error of a root command is its answer, not a timeout', async (t) => {
  const r = await run(leaseAnswering(() => 'unknown identifier `x`', []));
  t.equal(r.messages[0]!.data, 'unknown identifier `x`');
});
