/**
 * One request's heartbeat budgets (max-heartbeats.ts says what a budget is and why): each
 * wrappable command is sent with what the time left until the request's deadline buys, never
 * above the limit a real run would have at that point of the file (Lean's default, or the
 * file's own `set_option maxHeartbeats`), and an outcome Lean cut short at such a budget is
 * counted and never remembered.
 *
 * A class, not an object of closures: made on every miss, it is one object whose methods are
 * the prototype's (the keepNames build defines a name for every named closure made; docs/hot-paths.md).
 */
import { commandHead, type CommandHead } from '../../syntax/command-head.ts';
import type { ReplMessage } from '../protocol/schema.ts';
import {
  budgetable,
  heartbeatBudget,
  scopeLimits,
  sentBudget,
  stoppedByBudget,
  withBudget,
  WRAP_LINES,
} from './max-heartbeats.ts';

export class HeartbeatBudgets {
  /** Commands Lean stopped at their budget (the request's deadline, not a verdict). */
  stops = 0;
  readonly #texts: string[];
  /** Each command's head, read once (a lex of its first words), for its scope and its budget. */
  readonly #heads: CommandHead[];
  readonly #scopes: number[];

  /** For `commands` sent until `deadline` (epoch ms), at `perSecond` heartbeats (thousands) a second. */
  constructor(
    commands: readonly { text: string }[],
    private readonly deadline: number,
    private readonly perSecond: number,
  ) {
    // `map`, not `push`: a list of exactly their length (a first push allocates room for 17).
    this.#texts = commands.map((c) => c.text);
    this.#heads = this.#texts.map((t) => commandHead(t));
    this.#scopes = scopeLimits(this.#texts, this.#heads);
  }

  /** The text to send for command `i` and the lines it adds on top; undefined: send it as it is. */
  prepare(text: string, i: number): { text: string; lines: number } | undefined {
    const head = this.#texts[i] === text ? this.#heads[i]! : commandHead(text);
    if (!budgetable(text, head)) return undefined;
    const scope = this.#scopes[i]!;
    const n = heartbeatBudget(this.deadline - Date.now(), this.perSecond, scope);
    // At the limit in scope the budget changes nothing a real run would do: send the text as is.
    return n === scope ? undefined : { text: withBudget(text, n, head), lines: WRAP_LINES };
  }

  /** Whether an outcome may be remembered: not one cut short by this request's deadline (counted in `stops`). */
  remember(messages: readonly ReplMessage[], sent: string): boolean {
    // Most outcomes hold no error: the sent text's budget is read back only when one could be its stop.
    if (!hasError(messages)) return true;
    const budget = sentBudget(sent);
    if (budget === undefined || !stoppedAt(messages, budget)) return true;
    this.stops++;
    return false;
  }
}

function hasError(messages: readonly ReplMessage[]): boolean {
  for (const m of messages) if (m.severity === 'error') return true;
  return false;
}

/** Whether one of `messages` is Lean stopping at `budget`. */
function stoppedAt(messages: readonly ReplMessage[], budget: number): boolean {
  for (const m of messages) if (m.severity === 'error' && stoppedByBudget(m.data, budget)) return true;
  return false;
}
