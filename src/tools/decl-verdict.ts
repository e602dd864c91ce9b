/**
 * What Lean said about one declaration of an elaborated file (errors, sorry, axioms: `declVerdict`), and the
 * readers the tools' verdicts share: the messages inside a declaration, the same declaration after an edit,
 * the type a `#check` printed.
 */
import type { LeanMessage } from '../backend/index.ts';
import { printedName, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { NONE } from '../util/arrays.ts';
import type { Elaborated } from './elaborate.ts';

/** The standard axioms a valid proof may use. */
export const STANDARD_AXIOMS = new Set(['propext', 'Classical.choice', 'Quot.sound']);

/**
 * Lean's sorry warning in each recorded spelling: `declaration uses 'sorry'` (REPL transcripts
 * v4.21.0 … v4.27.0), ``declaration uses `sorry` `` (v4.28.0 … v4.33.0-rc2), and the form naming the
 * declaration, ``declaration `g` uses `sorry` `` (Lean's own test tests/lean/run/10196.lean at lean4
 * 7608ad0; ../shared/recorded, test/recorded/parsers.test.ts).
 */
export const isSorryWarning = (m: LeanMessage) =>
  m.severity === 'warning' && /^declaration (?:`[^`]+` )?uses ['`]sorry['`]/.test(m.text);

/** The same declaration in another elaboration of the content (after an edit). */
export function sameDecl(r: Pick<Elaborated, 'file'>, d: SourceDecl): SourceDecl | undefined {
  return declsByName(r.file)
    .get(nameKey(d))
    ?.find((x) => x.fullName !== undefined || x.command.start === d.command.start);
}

/** What `sameDecl` matches on: the keyword and the name (full where known). */
const nameKey = (d: SourceDecl) => `${d.keyword}\u0000${d.fullName ?? d.name}`;

/** A file's declarations by keyword and name, in file order: `sameDecl` per declaration stays linear overall. */
const byNameOf = new WeakMap<SourceFile, Map<string, SourceDecl[]>>();
function declsByName(file: SourceFile): Map<string, SourceDecl[]> {
  let m = byNameOf.get(file);
  if (!m) {
    m = new Map();
    for (const x of file.decls) {
      const list = m.get(nameKey(x));
      if (list) list.push(x);
      else m.set(nameKey(x), [x]);
    }
    byNameOf.set(file, m);
  }
  return m;
}

/** Message indices ordered by line (stable), built once per message list: `messagesIn` per declaration stays near-linear. */
const lineOrderOf = new WeakMap<readonly LeanMessage[], { length: number; order: number[] }>();
function lineOrder(messages: readonly LeanMessage[]): number[] {
  const known = lineOrderOf.get(messages);
  // A list that grew since (messages are appended while an elaboration is read) is indexed again.
  if (known && known.length === messages.length) return known.order;
  const order = messages.map((_, i) => i).sort((a, b) => messages[a]!.pos.line - messages[b]!.pos.line || a - b);
  lineOrderOf.set(messages, { length: messages.length, order });
  return order;
}

/** Lean's messages inside a declaration's lines that satisfy `keep`. */
export function messagesIn(
  r: Pick<Elaborated, 'file' | 'messages'>,
  d: SourceDecl,
  keep: (m: LeanMessage) => boolean,
): LeanMessage[] {
  const { messages } = r;
  // No message (a miss that compiles): no index of them to build.
  if (messages.length === 0) return [];
  // Lean lines are 1-based (LineIndex.toLean), without a position object per end.
  const from = r.file.lines.lineOf(d.command.start) + 1;
  const to = r.file.lines.lineOf(d.command.end) + 1;
  const order = lineOrder(messages);
  // The first message on line `from` or later, by binary search; then those up to line `to`, in list order.
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (messages[order[mid]!]!.pos.line < from) lo = mid + 1;
    else hi = mid;
  }
  const hits: number[] = [];
  for (let k = lo; k < order.length && messages[order[k]!]!.pos.line <= to; k++) hits.push(order[k]!);
  if (hits.length > 1) hits.sort(byNumber);
  const out: LeanMessage[] = [];
  for (const i of hits) if (keep(messages[i]!)) out.push(messages[i]!);
  return out;
}

const byNumber = (a: number, b: number) => a - b;
const everyMessage = () => true;

/** What Lean said about one declaration of the elaborated file. */
export interface DeclVerdict {
  hasErrors: boolean;
  /** A sorry warning inside it, or `sorryAx` among its axioms. */
  usesSorry: boolean;
  /** Axioms beyond the standard ones (and beyond `sorryAx`). */
  foreignAxioms: string[];
  /** Asked about, compiled without errors, and yet no `#print axioms` answer: why (a failure, never a pass). */
  axiomsUnanswered: string | undefined;
}

export function declVerdict(
  r: Pick<Elaborated, 'file' | 'messages' | 'axioms'> & Partial<Pick<Elaborated, 'axiomsUnanswered'>>,
  d: SourceDecl,
): DeclVerdict {
  const inside = messagesIn(r, d, everyMessage);
  const axioms: readonly string[] = (d.fullName ? r.axioms.get(d.fullName) : undefined) ?? NONE;
  const hasErrors = inside.some(isError);
  const unanswered = d.fullName ? r.axiomsUnanswered?.get(d.fullName) : undefined;
  return {
    axiomsUnanswered: hasErrors ? undefined : unanswered,
    hasErrors,
    // Lean adds a declaration with errors with `sorryAx` in place of what failed [lean4: the
    // elaborator's error recovery, `exceptionToSorry`]: that sorry is the error's, not the author's.
    usesSorry: !hasErrors && (inside.some(isSorryWarning) || axioms.includes('sorryAx')),
    foreignAxioms: axioms.filter(isForeignAxiom),
  };
}

const isError = (m: LeanMessage) => m.severity === 'error';
const isForeignAxiom = (a: string) => a !== 'sorryAx' && !STANDARD_AXIOMS.has(a);

/** How a declaration's type is asked for: full names (the `open`s in force must not change the text) and `→`/`fun` as Mathlib prints them. */
export const CHECK_PRINTING = ['set_option pp.fullNames true in', 'set_option pp.unicode.fun true in'];
export const printedCheck = (name: string) => [...CHECK_PRINTING, `#check @${name}`].join('\n');

/** Whitespace-insensitive form of Lean text, for comparing statements and values as written. */
export const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The type in a `#check @name` output (its first info message), whitespace squashed; undefined without one.
 * Lean prints `@name : …` for a constant with implicit or instance arguments and `name : …` otherwise
 * (recorded: ../shared/recorded/batteries/<tag>/…, `info: @vec_of_some : {d_some_nat : some_nat.Val} → …` beside
 * `info: prime_dec : …`), so the `@` is dropped with the name: the type alone compares across names
 * (merge's rule 5).
 */
export function checkedType(messages: readonly LeanMessage[] | undefined, name: string): string | undefined {
  const text = messages?.find((m) => m.severity === 'info')?.text;
  if (text === undefined) return undefined;
  // Lean prints the name without unneeded guillemets (`theorem «foo»` is `foo : …`).
  const bare = withoutName(text, name) ?? withoutName(text, printedName(name)) ?? text;
  return squash(bare).replace(/^:\s*/, '');
}

/** `text` after a leading `@name` or `name`; undefined when it starts with neither. */
function withoutName(text: string, name: string): string | undefined {
  if (text.startsWith(`@${name}`)) return text.slice(name.length + 1);
  return text.startsWith(name) ? text.slice(name.length) : undefined;
}
