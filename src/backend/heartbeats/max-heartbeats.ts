/**
 * Lean-side deadlines. No REPL tag in the supported range accepts a timeout: the Command
 * request is `{cmd, env?, allTactics?, rootGoals?, infotree?}` at every tag v4.24.0 ..
 * v4.33.0-rc2 [repl v4.28.0: REPL/JSON.lean, `structure Command extends CommandOptions`], and
 * `runCommand` runs it with no cancellation token (`cancelTk? := none`) [repl v4.28.0:
 * REPL/Main.lean, `runCommand`]. What Lean does offer is `maxHeartbeats`, checked by the elaborator
 * itself; so each command goes out as `set_option maxHeartbeats N in <command>`, with N
 * derived from the time the request has left, and a command that runs out stops with
 * Lean's own error while the process lives on.
 *
 * Facts relied on (lean4 source):
 * - `maxHeartbeats` is in thousands of heartbeats, default 200000, 0 = no limit
 *   [lean4 v4.28.0: src/Lean/CoreM.lean, `register_builtin_option maxHeartbeats`].
 * - `set_option o v in cmd` runs `cmd` in a scope of its own [lean4 v4.28.0:
 *   src/Lean/Elab/BuiltinCommand.lean, `expandInCmd`]. How that scope treats `cmd`'s local
 *   effects has changed across versions (a plain `section … end` before lean4 PR #9968, then
 *   `section cmd₁ endLocalScope cmd₂ end`, later `push_scope%` with scope restrictions), so the
 *   wrap is sent only before commands whose effect does not depend on it: declarations, not
 *   `namespace`/`open`/`variable`/`local …`/`@[local …]`. Conservative on purpose: such a
 *   command runs without a Lean-side budget and relies on the kill deadline alone.
 * - The stop message: "(deterministic) timeout at `m`, maximum number of heartbeats (N)
 *   has been reached\nUse `set_option maxHeartbeats <num>` to set the limit."
 *   [lean4 v4.28.0: src/Lean/CoreM.lean, `throwMaxHeartbeat`; older tags phrase the tail differently,
 *   the part matched below is common to all].
 */

import { commandHead, endsWithEnd, setOptionOf, type CommandHead } from '../../syntax/command-head.ts';
import { ELABORATING_HASH_COMMANDS } from '../../syntax/keywords.ts';
import { regex } from '../../util/regex.ts';

/**
 * Lean's default [lean4 v4.28.0: src/Lean/CoreM.lean, `maxHeartbeats`]: a budget never raises the limit a real run
 * would have.
 */
export const LEAN_DEFAULT_MAX_HEARTBEATS = 200_000;

const STOP_RE = /\(deterministic\) timeout.*maximum number of heartbeats \((\d+)\) has been reached/;

/**
 * Whether `text` is a command that `set_option … in` can wrap without changing what it does: a
 * declaration, or a `#` command that elaborates a term, without a `local`/`scoped` modifier or
 * attribute. The words are the source model's (syntax/command-head.ts, syntax/keywords.ts).
 */
export function wrappable(text: string, head: CommandHead = commandHead(text)): boolean {
  if (head.scoped) return false;
  return head.kind === 'declaration' || (head.kind === 'hash' && ELABORATING_HASH_COMMANDS.has(head.keyword));
}

/** The heartbeat limit a standalone `set_option maxHeartbeats N` command sets for what follows, if `text` is one. */
export function scopeLimit(text: string): number | undefined {
  const option = setOptionOf(text);
  return option?.name === 'maxHeartbeats' && /^\d+$/.test(option.value) ? Number(option.value) : undefined;
}

const opensScope = (head: CommandHead) => head.kind === 'section' || head.kind === 'namespace';

/**
 * The heartbeat limit in force at each command: Lean's default, changed by a standalone
 * `set_option maxHeartbeats N` until the end of the scope it stands in. Options live in the
 * scope: `section`/`namespace` push a copy of the current one and `end` pops it, restoring the
 * options in force before [lean4 v4.28.0: src/Lean/Elab/BuiltinCommand.lean, `addScope` and `elabEnd`
 * (`modify fun s => { s with scopes := s.scopes.drop … }`); src/Lean/Elab/Command.lean, `Scope.opts`],
 * so a limit raised inside a section does not hold after its `end`.
 */
export function scopeLimits(
  texts: readonly string[],
  heads: readonly CommandHead[] = texts.map((t) => commandHead(t)),
): number[] {
  // Sized at once (every miss reads one): a first push allocates room for 17.
  const out = new Array<number>(texts.length);
  const stack: number[] = [];
  let limit = LEAN_DEFAULT_MAX_HEARTBEATS;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i]!;
    out[i] = limit;
    const head = heads[i]!;
    if (opensScope(head)) stack.push(limit);
    else if (head.kind === 'end') limit = stack.pop() ?? limit;
    else if (head.kind === 'set_option') limit = scopeLimit(t) ?? limit;
  }
  return out;
}

/**
 * The budget for a command: what the remaining time buys at `perSecond` heartbeats
 * (thousands, the option's unit), never above the limit in scope (`scope`, 0 = none).
 */
export function heartbeatBudget(remainingMs: number, perSecond: number, scope: number): number {
  const fromTime = Math.max(1, Math.floor((remainingMs / 1000) * perSecond));
  return scope === 0 ? fromTime : Math.min(scope, fromTime);
}

export const WRAP_LINES = 1;

/**
 * The comment after `in`: Mathlib's `linter.style.maxHeartbeats` (in `linter.mathlibStandardSet`, which
 * `mathlib_options` turns on) warns about a `set_option maxHeartbeats n in` whose `in` has no comment in
 * its trailing trivia [mathlib4 Mathlib/Tactic/Linter/Style.lean, `getSetOptionMaxHeartbeatsComment`:
 * `inAtom.getTrailing?`; `getDeprecatedSyntax`: "Please, add a comment explaining the need for modifying
 * the maxHeartbeat limit"]. The budget is the service's, not the author's: with the comment on the same
 * line, the wrap adds no warning and still one line.
 */
export const BUDGET_COMMENT = '-- lean-tool: the request deadline as a heartbeat budget';

/**
 * A probe the tools build as one input `section … end` / `namespace N … end N` (disprove's attempts,
 * verify_proof's definitional-equality checks): `set_option … in` cannot wrap several commands, but a
 * standalone `set_option maxHeartbeats N` right after the opening line holds for the block's own commands
 * and ends with its `end` (see `scopeLimits`), so the probes get a Lean-side budget too.
 * Only such self-contained blocks: a content unit is a single command, never a scope with its `end`.
 */
export function isBudgetBlock(text: string, head: CommandHead = commandHead(text)): boolean {
  // The budget goes below the first line: the block's opening command must be that line's start.
  return head.start === 0 && opensScope(head) && endsWithEnd(text);
}

/** Whether the backend can send `text` with a heartbeat budget (wrapped, or set inside its block). */
export const budgetable = (text: string, head: CommandHead = commandHead(text)): boolean =>
  wrappable(text, head) || isBudgetBlock(text, head);

export function withBudget(text: string, budget: number, head: CommandHead = commandHead(text)): string {
  if (!wrappable(text, head) && isBudgetBlock(text, head)) {
    const nl = text.indexOf('\n');
    return `${text.slice(0, nl)}\nset_option maxHeartbeats ${budget} ${BUDGET_COMMENT}${text.slice(nl)}`;
  }
  return `set_option maxHeartbeats ${budget} in ${BUDGET_COMMENT}\n${text}`;
}

/** The budget a message says Lean stopped at, if it is a heartbeat stop. */
export function stoppedAt(messageText: string): number | undefined {
  const m = STOP_RE.exec(messageText);
  return m ? Number(m[1]) : undefined;
}

/**
 * The kernel's own stop: `Kernel.Exception.deterministicTimeout` renders as the bare text
 * "(kernel) deterministic timeout", naming no budget [lean4 src/Lean/Message.lean,
 * `Kernel.Exception.toMessageData`; recorded: ../shared/recorded/lean4/tests/lean/run/kernel_maxheartbeats.lean,
 * `error: (kernel) deterministic timeout` under `set_option maxHeartbeats 500`]. The kernel counts against the same
 * `maxHeartbeats`, so in a command sent with a budget below the limit in scope it is the budget's stop.
 */
const KERNEL_STOP_RE = /^\(kernel\) deterministic timeout\b/;

export function isKernelTimeout(messageText: string): boolean {
  return KERNEL_STOP_RE.test(messageText);
}

/** Whether a message of a command sent with budget `budget` is Lean stopping at that budget (elaborator or kernel). */
export function stoppedByBudget(messageText: string, budget: number): boolean {
  return stoppedAt(messageText) === budget || isKernelTimeout(messageText);
}

/** The budget a wrapped text was sent with. */
/** A budget set inside a block (withBudget's second form), compiled once. */
const BLOCK_BUDGET_RE = regex`^[^\n]*\nset_option maxHeartbeats (\d+) ${BUDGET_COMMENT}\n`;

export function sentBudget(sentText: string): number | undefined {
  const m = /^set_option maxHeartbeats (\d+) in(?: --[^\n]*)?\n/.exec(sentText) ?? BLOCK_BUDGET_RE.exec(sentText);
  return m ? Number(m[1]) : undefined;
}
