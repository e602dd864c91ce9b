/**
 * Syntactic dependencies of declarations: the names written literally in a declaration's
 * source, split into local ones (resolved, through the namespaces and `open`s in scope, to
 * a declaration earlier in the same file or in the same `mutual` block) and external ones
 * (everything else that is not a bound variable). Names produced by notation or macro
 * expansion are invisible here by design: the spec's fields are about what is written.
 *
 * One pass over the declaration's significant tokens to find bound names, one to classify
 * references; every lookahead consumes a run of identifiers that no other lookahead
 * revisits, so the whole file is linear in its tokens.
 */
import { OPENER_SET } from './keywords.ts';
import { identOccurrences, resolveName } from './names.ts';
import { isCloser, isOpener, type SigTokens } from './significant.ts';
import { splitName, type SourceDecl, type SourceFile } from './source.ts';
import { parseTacticBlock, type TacticBlock } from './tactics.ts';

export interface SyntacticDependencies {
  /** Full names of local declarations, in order of first use. */
  local: string[];
  /** Other names written literally (not bound in the declaration), as written, in order of first use. */
  external: string[];
}

/** Words after which identifiers up to a separator are binders (`fun x y =>`, `∀ x ∈ s,`, `∑ i in s,`). */
const BINDER_WORDS = new Set(['fun', 'λ', '∀', '∃', '∃!', 'Π', 'Σ', '∑', '∏', '⋃', '⋂', '⨆', '⨅', 'forall', '∫']);
/**
 * Tactics and term keywords whose following identifiers (same line, up to `:`/`:=`/`=`) are
 * introduced names. `cases`/`rcases`/`induction` are not among them: the term they take is
 * a reference; their names come after `with`.
 */
const INTRO_WORDS = new Set([
  'intro',
  'intros',
  'rintro',
  'rintros',
  'obtain',
  'case',
  "case'",
  'next',
  'set',
  'generalize',
  'ext',
  'funext',
  'by_contra',
  'by_contra!',
  'by_cases',
  'choose',
  'have',
  'haveI',
  "have'",
  'let',
  'letI',
  'suffices',
  'replace',
  'with',
  'rename_i',
  'introv',
  'peel',
]);
/** Words that end an introduction list. */
const INTRO_STOP = new Set([':', ':=', '=', '←', '<-', 'using', 'at', '|', '=>', 'from', 'in', 'generalizing']);
/** Tactic combinators after which the next word is a tactic name. */
const TACTIC_COMBINATORS = new Set([
  '<;>',
  ';',
  'try',
  'all_goals',
  'any_goals',
  'repeat',
  "repeat'",
  'focus',
  'first',
  'iterate',
  '·',
  '.',
  'classical',
  'on_goal',
  'case',
  'next',
]);

/** Is token k an identifier written directly after a `.` (anonymous constructor `.inl`, a field after a closer, `|>.elim`)? */
const afterDot = (sig: SigTokens, k: number) =>
  k > 0 && sig.kind[k - 1] === 'symbol' && sig.text[k - 1]!.endsWith('.') && sig.end[k - 1] === sig.start[k];

/** The words that end a tactic introduction's identifiers at depth 0, commas included. */
const INTRO_STOP_DEPTH0 = new Set([...INTRO_STOP, ',']);
/** Symbols a binder or pattern run may contain between its names. */
const PATTERN_PUNCTUATION = new Set([',', '_', '@', '|', '-', '*', '?', '!']);
/** Words that end a `∀`/`fun`/`∃`/`∑` binder run at its own depth. */
const BINDER_RUN_ENDS = new Set([',', '=>', '↦', ':', '∈', 'in', '∉', '<', '≤', '>', '≥', '⊆', '|']);

/**
 * Identifiers (and pattern brackets around them) from token k until a stop word: the names a
 * tactic introduces (`intro a b`, `obtain ⟨x, (h : p)⟩`). Returns the index after the run.
 */
function addIdents(
  sig: SigTokens,
  k: number,
  to: number,
  stopAtSeparators: ReadonlySet<string>,
  bound: Set<string>,
): number {
  const line = sig.line[k - 1];
  let depth = 0;
  let j = k;
  for (; j < to; j++) {
    const t = sig.text[j]!;
    if (depth === 0 && (sig.line[j] !== line || stopAtSeparators.has(t))) break;
    if (isOpener(sig, j)) {
      depth++;
      continue;
    }
    if (isCloser(sig, j)) {
      if (--depth < 0) break;
      continue;
    }
    if (sig.kind[j] === 'ident') {
      // Inside a binder group's type annotation the names are references: stop the group at `:`.
      if (!afterDot(sig, j)) bound.add(splitName(t)[0]!);
    } else if (t === ':' && depth > 0) {
      // `⟨x, (h : p)⟩`: skip the annotation to its closer.
      j = closerOfAnnotation(sig, j + 1, to);
      depth--;
    } else if (!PATTERN_PUNCTUATION.has(t) && depth === 0) break;
  }
  return j;
}

/** The index of the closer that ends the bracket group a `:` annotation sits in (or `to`). */
function closerOfAnnotation(sig: SigTokens, j: number, to: number): number {
  let d = 0;
  for (; j < to; j++) {
    if (isOpener(sig, j)) d++;
    else if (isCloser(sig, j) && --d < 0) return j;
  }
  return j;
}

/** `(x y : T)` / `{x | p x}` / `[inst : C]` at k: binds the run of identifiers before `:` (or `|`); returns the last index used. */
function binderGroup(sig: SigTokens, k: number, to: number, bound: Set<string>): number {
  let j = k + 1;
  while (j < to && (sig.kind[j] === 'ident' || sig.text[j] === '_') && !afterDot(sig, j)) j++;
  if (j > k + 1 && (sig.text[j] === ':' || (sig.text[k] === '{' && sig.text[j] === '|'))) {
    for (let i = k + 1; i < j; i++) bound.add(splitName(sig.text[i]!)[0]!);
    return j - 1;
  }
  // Otherwise (`(fun x => …)`, `(f a)`) the group's words are looked at one by one.
  return k;
}

/**
 * `∀ x y, …`, `fun ⟨a, b⟩ (c : T) => …`, `∃ (S : Finset (Fin 2)), …`, `∑ i ∈ s, …` at k:
 * identifiers are bound unless they sit after a `:` inside their bracket group (a type).
 * Returns the last index used.
 */
function binderWordRun(sig: SigTokens, k: number, to: number, bound: Set<string>): number {
  let j = k + 1;
  const inType: boolean[] = [false];
  for (; j < to; j++) {
    const u = sig.text[j]!;
    if (isOpener(sig, j)) {
      inType.push(inType[inType.length - 1]!);
      continue;
    }
    if (isCloser(sig, j)) {
      inType.pop();
      if (inType.length === 0) break;
      continue;
    }
    const depth = inType.length - 1;
    if (depth === 0 && BINDER_RUN_ENDS.has(u)) break;
    if (u === ':' && depth > 0) inType[depth] = true;
    else if (sig.kind[j] === 'ident' && !afterDot(sig, j) && !inType[depth]) bound.add(splitName(u)[0]!);
  }
  return j - 1;
}

/** A `|` starting a line or after `with`/`fun`/`match`: not the `|` of `{x | p}` or `|x|`. */
const isAlternativeBar = (sig: SigTokens, k: number) =>
  sig.text[k] === '|' &&
  sig.kind[k] === 'symbol' &&
  (sig.firstOnLine[k] || ['with', 'fun', 'match', 'λ', 'where'].includes(sig.text[k - 1] ?? ''));

/** `| pat => …` at k (match / induction alternatives): binds the pattern's variables; returns the last index used. */
function alternativePattern(sig: SigTokens, k: number, to: number, bound: Set<string>): number {
  let j = k + 1;
  let first = true;
  for (; j < to && sig.text[j] !== '=>' && sig.text[j] !== ':=' && sig.line[j] === sig.line[k]; j++) {
    if (sig.text[j] === ',' || sig.text[j] === '|') {
      first = true;
      continue;
    }
    if (sig.kind[j] !== 'ident' || afterDot(sig, j)) {
      if (sig.kind[j] !== 'symbol') first = false;
      continue;
    }
    // The head of an applied pattern is a constructor (`succ n`, `some (x, y)`), the rest are variables (`n+1`, `x :: xs`).
    const next = sig.text[j + 1];
    const isHead = first && (sig.kind[j + 1] === 'ident' || next === '_' || next === '(' || next === '⟨');
    first = false;
    if (!isHead) bound.add(splitName(sig.text[j]!)[0]!);
  }
  return j - 1;
}

/** Structure fields `x y : T` / `x : T := v`, and `where` fields and local definitions, at a line start. */
function fieldNames(sig: SigTokens, k: number, to: number, bound: Set<string>): void {
  let j = k;
  while (j < to && sig.kind[j] === 'ident' && sig.line[j] === sig.line[k]) j++;
  if (sig.text[j] === ':' || sig.text[j] === ':=') for (let i = k; i < j; i++) bound.add(sig.text[i]!);
}

/**
 * Names bound inside significant tokens [from, to): binder groups `(x y : T)`, `{α}`,
 * `[inst : C]`, set-builder `{x | p}`, `fun`/`∀`/`∃` binders, tactic introductions
 * (`intro`, `obtain ⟨a, b⟩`, `cases h with | inl h`…), `have`/`let` names, match
 * alternative variables, and structure fields / inductive constructors.
 */
export function boundNames(
  sig: SigTokens,
  from: number,
  to: number,
  opts: { ctors?: boolean; fields?: boolean } = {},
): Set<string> {
  const bound = new Set<string>();
  for (let k = from; k < to; k++) {
    const t = sig.text[k]!;
    const kind = sig.kind[k];
    if (kind === 'symbol' && (t === '(' || t === '{' || t === '⦃' || t === '[' || t === '{{'))
      k = binderGroup(sig, k, to, bound);
    else if (BINDER_WORDS.has(t)) k = binderWordRun(sig, k, to, bound);
    else if (kind === 'ident' && INTRO_WORDS.has(t)) {
      const stops = t === 'obtain' || t === 'rintro' || t === 'intro' ? INTRO_STOP : INTRO_STOP_DEPTH0;
      k = addIdents(sig, k + 1, to, stops, bound) - 1;
    } else if (isAlternativeBar(sig, k)) {
      // `| mk : T`: an inductive's constructor.
      if (opts.ctors) {
        if (sig.kind[k + 1] === 'ident') bound.add(splitName(sig.text[k + 1]!)[0]!);
      } else k = alternativePattern(sig, k, to, bound);
    } else if (opts.fields && kind === 'ident' && sig.firstOnLine[k]) fieldNames(sig, k, to, bound);
  }
  return bound;
}

/**
 * Significant-token indices of tactic names (item heads and words after combinators) in
 * every `by` block of [from, to): the proof's, and those inside terms (`show p by rfl`,
 * equation right-hand sides). A `by` inside a block already parsed is part of its tree.
 */
export function tacticNameTokens(sig: SigTokens, from: number, to: number): Set<number> {
  const out = new Set<number>();
  let covered = from;
  for (let k = from; k < to; k++) {
    if (k < covered || sig.text[k] !== 'by' || sig.kind[k] !== 'ident') continue;
    const block = parseTacticBlock(sig, k, to);
    covered = block.sigEnd;
    collectTacticNames(sig, block, out);
  }
  return out;
}

/** Is token k the start of a `fun x => body` body (which the tactic tree may take for an alternative)? Looks back a bounded stretch. */
function afterFunArrow(sig: SigTokens, k: number): boolean {
  if (sig.text[k - 1] !== '=>' && sig.text[k - 1] !== '↦') return false;
  for (let j = k - 2, n = 0; j >= 0 && n < 64 && sig.line[j] === sig.line[k - 1]; j--, n++) {
    const t = sig.text[j];
    if (t === 'fun' || t === 'λ') return true;
    if (t === '|' || t === 'with' || t === 'case' || t === 'next') return false;
  }
  return false;
}

function collectTacticNames(sig: SigTokens, root: TacticBlock, out: Set<number>): void {
  const stack: TacticBlock[] = [root];
  while (stack.length > 0) {
    const block = stack.pop()!;
    for (const item of block.items) {
      if (!afterFunArrow(sig, item.sigStart)) out.add(item.sigStart);
      for (const c of item.children) stack.push(c);
    }
  }
  // Words after combinators, in one pass over the block (children lie inside it).
  for (let j = root.sigStart; j < root.sigEnd - 1; j++) {
    if (TACTIC_COMBINATORS.has(sig.text[j]!) && sig.kind[j + 1] === 'ident') out.add(j + 1);
  }
}

/** Where a declaration's names resolve: its namespace (with the declaration name's own prefix) and the `open`s in force. */
export function declScope(file: SourceFile, d: SourceDecl): { namespace: string; opens: readonly string[] } {
  const opens = file.scopes[d.commandIndex]?.opens ?? d.opens;
  const full = d.fullName;
  const i = full ? full.lastIndexOf('.') : -1;
  // Lean elaborates `theorem A.b` inside namespace `A` (the declaration name's prefix).
  const namespace = full && i > 0 && !d.name?.startsWith('_root_.') ? full.slice(0, i) : d.namespace;
  return { namespace, opens };
}

/** Token ranges inside `@[…]` attribute lists (attribute names are not references). */
function attributeTokens(sig: SigTokens, from: number, to: number): Set<number> {
  const out = new Set<number>();
  for (let k = from; k < to; k++) {
    if (sig.text[k] !== '@[') continue;
    let depth = 0;
    for (; k < to; k++) {
      if (OPENER_SET.has(sig.text[k]!) && sig.kind[k] === 'symbol') depth++;
      else if (isCloser(sig, k) && --depth === 0) break;
      out.add(k);
    }
  }
  return out;
}

/**
 * The local name a written name denotes, trying the whole name and then shorter prefixes
 * (`foo.symm`, `Foo.mk` for a local `foo` / structure `Foo`); undefined when none is local.
 */
function resolveLocal(
  written: string,
  scope: { namespace: string; opens: readonly string[] },
  declared: ReadonlySet<string>,
): string | undefined {
  let w = written;
  for (;;) {
    const hit = resolveName(w, scope, declared)[0];
    if (hit !== undefined) return hit;
    const i = w.lastIndexOf('.');
    if (i <= 0) return undefined;
    w = w.slice(0, i);
  }
}

/** Syntactic dependencies of every declaration of the file, in declaration order (one Map entry per declaration). */
export function syntacticDependencies(file: SourceFile): Map<SourceDecl, SyntacticDependencies> {
  const out = new Map<SourceDecl, SyntacticDependencies>();
  const declared = new Set<string>();
  const decls = file.decls;
  for (let i = 0; i < decls.length; i++) {
    const d = decls[i]!;
    if (d.mutualGroup !== undefined && (i === 0 || decls[i - 1]!.mutualGroup !== d.mutualGroup))
      declareMutualGroup(decls, i, declared);
    // A recursive reference to itself is neither local nor external.
    if (d.fullName) declared.add(d.fullName);
    out.set(d, referencesOf(file, d, declared));
  }
  return out;
}

/** Members of one mutual block see each other: declare the whole group, from its first member at i. */
function declareMutualGroup(decls: readonly SourceDecl[], i: number, declared: Set<string>): void {
  const group = decls[i]!.mutualGroup;
  for (let j = i; j < decls.length && decls[j]!.mutualGroup === group; j++)
    if (decls[j]!.fullName) declared.add(decls[j]!.fullName!);
}

/** What a declaration's own tokens say about which identifiers are not references to declarations. */
interface DeclTokens {
  from: number;
  to: number;
  bound: Set<string>;
  tactics: Set<number>;
  attrs: Set<number>;
  nameK: number;
  whereFrom: number;
}

function declTokens(file: SourceFile, d: SourceDecl): DeclTokens {
  const { sig } = file;
  // `open X in` / `set_option … in` prefixes name namespaces and options, not declarations.
  const from = d.command.ownSigStart;
  const to = d.command.sigEnd;
  const structural =
    d.kind === 'structure' || d.kind === 'class' || d.kind === 'inductive' || d.kind === 'class inductive';
  return {
    from,
    to,
    bound: boundNames(sig, from, to, { ctors: structural, fields: structural || d.bodyForm === 'where' }),
    tactics: tacticNameTokens(sig, from, to),
    attrs: attributeTokens(sig, from, to),
    nameK: d.nameSpan ? sig.start.indexOf(d.nameSpan.start, from) : -1,
    // Fields of a `where` body (`x := 1` at a line start) are not references.
    whereFrom:
      d.bodyForm === 'where' && d.bodySig ? d.bodySig[0] : d.trailing.some((c) => c.keyword === 'where') ? from : -1,
  };
}

/** Is the identifier at k a name that cannot refer to a declaration (the declared name, a tactic, a field, a flag)? */
function notAReference(sig: SigTokens, k: number, t: DeclTokens): boolean {
  if (k === t.nameK || t.tactics.has(k) || t.attrs.has(k) || afterDot(sig, k)) return true;
  // Field and argument names `{ x := … }`, `(config := …)`, `where x := …`.
  const prev = sig.text[k - 1];
  if (
    sig.text[k + 1] === ':=' &&
    (prev === '(' || prev === '{' || prev === ',' || (sig.firstOnLine[k] && t.whereFrom >= 0 && k > t.whereFrom))
  )
    return true;
  // Tactic flags `+kernel`, `-zeta`.
  return (prev === '+' || prev === '-') && sig.end[k - 1] === sig.start[k] && t.tactics.size > 0;
}

/** The local and external names a declaration refers to, each once, in order of first use. */
function referencesOf(file: SourceFile, d: SourceDecl, declared: Set<string>): SyntacticDependencies {
  const { sig } = file;
  const t = declTokens(file, d);
  const scope = declScope(file, d);
  const local = new Set<string>();
  const external = new Set<string>();
  for (const occ of identOccurrences(sig, t.from, t.to)) {
    if (notAReference(sig, occ.sig, t) || t.bound.has(splitName(occ.name)[0]!)) continue;
    const hit = resolveLocal(occ.name, scope, declared);
    if (hit === undefined) external.add(occ.name);
    else if (hit !== d.fullName) local.add(hit);
  }
  return { local: [...local], external: [...external] };
}

/**
 * Local names written in the commands that are not declarations but can need one:
 * `variable (x : MyType)` and notation/macro commands (`notation "‖" x "‖" => myNorm x`).
 * Resolved like a declaration's, against the declarations before the command.
 */
export function commandDependencies(file: SourceFile): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const declared = new Set<string>();
  const { sig } = file;
  let next = 0;
  file.commands.forEach((cmd, i) => {
    while (next < file.decls.length && file.decls[next]!.commandIndex < i) {
      const n = file.decls[next++]!.fullName;
      if (n) declared.add(n);
    }
    if (cmd.kind !== 'variable' && cmd.kind !== 'notation') return;
    const bound = boundNames(sig, cmd.ownSigStart, cmd.sigEnd);
    const scope = file.scopes[i] ?? { namespace: '', opens: [] };
    const local: string[] = [];
    for (const occ of identOccurrences(sig, cmd.ownSigStart, cmd.sigEnd)) {
      if (afterDot(sig, occ.sig) || bound.has(splitName(occ.name)[0]!)) continue;
      const hit = resolveLocal(occ.name, scope, declared);
      if (hit !== undefined && !local.includes(hit)) local.push(hit);
    }
    if (local.length > 0) out.set(i, local);
  });
  return out;
}
