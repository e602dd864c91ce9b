/**
 * A job Lean already answered for a text that differs from this one only in comments (syntax/comment-free.ts): its
 * answer again, on this job's positions, without a session. Provers sample the same proof with other comments; the
 * result cache keys the exact request, so each such sample would otherwise cost Lean the whole check again.
 *
 * The answer is Lean's for the other text. It is this text's too where Lean's answer depends only on the tokens, their
 * columns and their lines' order, which the comment-free form keeps; the form refuses texts that run code of their
 * own at elaboration (which may read the source); a text with nothing a form changes is its own form without being
 * read (the miss path's common case), and answered only from itself or from a text read whole with the same tokens.
 * Lean quotes the source in a hint's suggestion, the text of the span it would replace [lean4 src/Lean/Meta/Hint.lean,
 * `mkSuggestionsMessage`: `map.source.extract` over the span; read in the versions the code index stores], which may
 * hold blank space and comments the form drops. So an answer with a hint is remembered, and given, only for a text
 * the form leaves as it is, and no answer whose messages hold a removed comment's text is remembered. A position on a
 * line, or part of a line, the form drops keeps an answer from being remembered: it has no place in another text.
 *
 * Commands asked with their info tree, and answers Lean did not finish (a deadline, a fault: the backend throws), are
 * never remembered. Sorries come back without their proof state: it names a state of the process that answered.
 */
import type { ReplPos, ReplSorry } from './protocol/schema.ts';
import { shiftPos, type LeanMessage, type Origin } from './protocol/messages.ts';
import { chainKey } from './session/keys.ts';
import { commentFreeForm, type CommentFree } from '../syntax/comment-free.ts';
import { RecentMap } from '../util/recent-map.ts';
import type { ElabCommandResult, ElabJob, ElabResult } from './index.ts';

/** A remembered answer: command positions on the comment-free forms' lines, tails' on their own. */
interface Remembered {
  headerMessages: readonly LeanMessage[];
  commands: readonly { messages: LeanMessage[]; sorries: ReplSorry[]; tail: LeanMessage[] | undefined }[];
}

/** A job's comment-free forms and its key in the memo. */
export interface MemoPlan {
  key: string;
  forms: CommentFree[];
}

/** Answers remembered up to this many characters of message and goal text each (a bound on the memo's memory). */
export const MAX_TEXT_CHARS = 64 * 1024;
/** Commands with more removed comments than this are not planned: each message is checked against each of them. */
export const MAX_REMOVED = 64;

export class CommentMemo {
  readonly #entries: RecentMap<string, Remembered>;
  hits = 0;

  constructor(entries: number) {
    this.#entries = new RecentMap(entries);
  }

  /** What `GET /v1/status` shows of it: answers held, and jobs answered from them. */
  stats(): { entries: number; hits: number } {
    return { entries: this.#entries.size, hits: this.hits };
  }

  /** The job's key and forms, or undefined when a command has no comment-free form or asks for its info tree. */
  plan(env: string, job: ElabJob): MemoPlan | undefined {
    const forms: CommentFree[] = [];
    let key = chainKey(env, job.header);
    for (let i = 0; i < job.commands.length; i++) {
      const c = job.commands[i]!;
      if (c.infotree) return undefined;
      const form = commentFreeForm(c.text);
      if (!form || form.removed.length > MAX_REMOVED) return undefined;
      forms.push(form);
      // One step per command (chainKey prefixes each with its length), and inside it the form and its tail apart.
      key = chainKey(key, c.tail ? `t${form.text.length}\u0000${form.text}${c.tail.text}` : `c${form.text}`);
    }
    return { key, forms };
  }

  /** The remembered answer on the job's positions, or undefined. */
  answer(plan: MemoPlan, job: ElabJob): ElabResult | undefined {
    const r = this.#entries.get(plan.key);
    if (!r) return undefined;
    const commands = new Array<ElabCommandResult>(job.commands.length);
    for (let i = 0; i < commands.length; i++) {
      const c = restored(r.commands[i]!, plan.forms[i]!, job.commands[i]!);
      if (!c) return undefined;
      commands[i] = c;
    }
    this.hits++;
    return { headerMessages: [...r.headerMessages], commands, session: 0, reused: commands.length, sent: 0 };
  }

  /** Remember `result` for the job when every position has a place in the comment-free forms (see above). */
  remember(plan: MemoPlan, job: ElabJob, result: ElabResult): void {
    const budget = { chars: MAX_TEXT_CHARS };
    const commands: Remembered['commands'][number][] = [];
    for (let i = 0; i < result.commands.length; i++) {
      const c = canonical(result.commands[i]!, plan.forms[i]!, job.commands[i]!, budget);
      if (!c) return;
      commands.push(c);
    }
    spend(budget, result.headerMessages);
    if (budget.chars < 0) return;
    this.#entries.set(plan.key, { headerMessages: result.headerMessages, commands });
  }
}

type Command = ElabJob['commands'][number];

/** A command's answer on its comment-free form's lines, or undefined when a position has no place there. */
function canonical(
  r: ElabCommandResult,
  form: CommentFree,
  c: Command,
  budget: { chars: number },
): Remembered['commands'][number] | undefined {
  spend(budget, r.messages);
  spend(budget, r.tail ?? []);
  const messages: LeanMessage[] = [];
  for (const m of r.messages) {
    if (quotesChanged(m, form) || form.removed.some((x) => m.text.includes(x))) return undefined;
    const pos = toForm(relative(m.pos, c.origin), form);
    const endPos = m.endPos && toForm(relative(m.endPos, c.origin), form);
    if (!pos || (m.endPos && !endPos)) return undefined;
    messages.push({ ...m, pos, endPos });
  }
  const sorries: ReplSorry[] = [];
  for (const s of r.sorries) {
    budget.chars -= s.goal.length;
    const pos = s.pos && toForm(s.pos, form);
    const endPos = s.endPos && toForm(s.endPos, form);
    if ((s.pos && !pos) || (s.endPos && !endPos)) return undefined;
    sorries.push({ goal: s.goal, pos, endPos });
  }
  // A command sent with a tail has its answer (ElabCommandResult.tail), and the key holds whether it has one.
  const tail = r.tail?.map((m) => onTail(m, (p) => relative(p, c.tail!.origin)));
  return { messages, sorries, tail };
}

/** A remembered command answer on `c`'s positions, or undefined when a message quotes source the form changed in `c`. */
function restored(r: Remembered['commands'][number], form: CommentFree, c: Command): ElabCommandResult | undefined {
  const messages: LeanMessage[] = [];
  for (const m of r.messages) {
    if (quotesChanged(m, form)) return undefined;
    const pos = fromForm(m.pos, form);
    const endPos = m.endPos && fromForm(m.endPos, form);
    messages.push({ ...m, pos: shiftPos(pos, c.origin), endPos: endPos && shiftPos(endPos, c.origin) });
  }
  const origin = c.origin;
  const sorries = r.sorries.map((s) => ({
    goal: s.goal,
    pos: s.pos && fromForm(s.pos, form),
    endPos: s.endPos && fromForm(s.endPos, form),
    origin,
  }));
  const out: ElabCommandResult = { messages, sorries, cached: true, ms: 0 };
  if (r.tail) out.tail = r.tail.map((m) => onTail(m, (p) => shiftPos(p, c.tail!.origin)));
  return out;
}

/** Counts the messages' text against the answer's bound (checked once the whole answer is counted). */
function spend(budget: { chars: number }, messages: readonly LeanMessage[]): void {
  for (const m of messages) budget.chars -= m.text.length;
}

const onTail = (m: LeanMessage, at: (p: ReplPos) => ReplPos): LeanMessage => ({
  ...m,
  pos: at(m.pos),
  endPos: m.endPos && at(m.endPos),
});

/** A content position → the same place in the command's own text (the inverse of shiftPos). */
function relative(p: ReplPos, origin: Origin): ReplPos {
  return p.line === origin.line
    ? { line: 1, column: p.column - origin.column }
    : { line: p.line - origin.line + 1, column: p.column };
}

/** A position of the text → the form's, or undefined on a dropped line or past the part of its line kept. */
function toForm(p: ReplPos, form: CommentFree): ReplPos | undefined {
  const i = p.line - 1;
  // Outside the text's lines: undefined, read as 0 (dropped).
  const line = form.lineOf[i] ?? 0;
  return line > 0 && p.column >= 0 && p.column <= form.keep[i]! ? { line, column: p.column } : undefined;
}

/** A position of the form → the text's (the forms are equal, so every line of one is a line of the other). */
function fromForm(p: ReplPos, form: CommentFree): ReplPos {
  return { line: form.from[p.line - 1] ?? p.line, column: p.column };
}

/** A message that may quote its command's source (a hint's suggestion), about a text its form changed. */
const quotesChanged = (m: LeanMessage, form: CommentFree) => form.changed && m.text.includes('Hint:');
