/**
 * Lean's pretty-printed goals, as the REPL reports them at a `sorry` or in an "unsolved
 * goals" error, turned into lemma statements.
 *
 *   case succ            ← optional tag
 *   n✝ : Nat             ← hypotheses: names, then ` : type` (continuation lines indented)
 *   ih : P n✝
 *   hlong :              ← a hypothesis too wide for the line: its type on the next lines, indented
 *     P (n✝ + 1) ∧ …
 *   ⊢ P (n✝ + 1)         ← target (continuation lines indented)
 *
 * Lean's goal printer [lean4 v4.28.0: src/Lean/Meta/PPGoal.lean, `ppGoal`; v4.24.0 … v4.33.0]: a
 * hypothesis is the group `ids ++ " :" ++ nest 2 (line ++ type)`, so past the width the
 * `line` breaks and the type moves to the next line, indented by 2; a let-bound one is
 * `x : T :=` with `nest 2 (line ++ value)`, and its value may likewise move down. Several
 * goals are printed one after another (the REPL joins them with newlines).
 */
import { isTrivia, lex } from '../syntax/lexer.ts';
import { minOf } from '../util/arrays.ts';
import { pushAll } from '../util/arrays.ts';

export interface Hypothesis {
  /** Names as printed (`x✝` is inaccessible). */
  names: string[];
  type: string;
  /** `x : T := v` (a let-bound variable). */
  value: string | undefined;
}

export interface Goal {
  tag: string | undefined;
  hyps: Hypothesis[];
  target: string;
}

/** Split the REPL's goal text into goals. */
export function parseGoals(text: string): Goal[] {
  const goals: Goal[] = [];
  let cur: Goal = { tag: undefined, hyps: [], target: '' };
  let inTarget = false;
  const lines = text.replace(/\r/g, '').split('\n');
  for (const line of lines) {
    if (line.startsWith(' ') && (inTarget || cur.hyps.length > 0)) {
      // Continuation of the target or of the last hypothesis.
      if (inTarget) cur.target += `\n${line}`;
      else {
        const h = cur.hyps[cur.hyps.length - 1]!;
        if (h.value !== undefined) h.value += `\n${line}`;
        else h.type += `\n${line}`;
      }
      continue;
    }
    if (inTarget) {
      goals.push(cur);
      cur = { tag: undefined, hyps: [], target: '' };
      inTarget = false;
    }
    if (line.startsWith('⊢')) {
      cur.target = line.slice(1).trim();
      inTarget = true;
    } else if (/^case\s+/.test(line) && cur.hyps.length === 0) {
      cur.tag = line.replace(/^case\s+/, '').trim();
    } else if (/ :$/.test(line) && !line.includes(' : ') && !line.startsWith(' ')) {
      // `h :` (type wrapped onto the next lines).
      cur.hyps.push({ names: line.slice(0, line.lastIndexOf(' :')).trim().split(/\s+/), type: '', value: undefined });
    } else if (line.includes(' : ')) {
      const i = line.indexOf(' : ');
      const rest = line.slice(i + 3);
      // `x : T := v`, or `x : T :=` with the value wrapped onto the next lines.
      const j = rest.endsWith(' :=') ? rest.length - 3 : rest.indexOf(' := ');
      cur.hyps.push({
        names: line.slice(0, i).trim().split(/\s+/),
        type: j >= 0 ? rest.slice(0, j) : rest,
        value: j >= 0 ? rest.slice(j + 4) : undefined,
      });
    } else if (line.trim() !== '') {
      cur.hyps.push({ names: [line.trim()], type: '', value: undefined });
    }
  }
  if (inTarget) goals.push(cur);
  return goals;
}

export const isInaccessible = (name: string) => name.includes('✝');

/**
 * An anonymous instance binder `[Foo α]` is named `inst✝` (with a superscript when several):
 * Lean's `mkFreshBinderName`-style `inst` base with a macro scope, printed with `✝` by
 * `sanitizeNames` [lean4 v4.28.0: src/Lean/Meta/PPGoal.lean, `ppGoal`: `lctx.sanitizeNames`]. Such a hypothesis
 * becomes an instance binder of the lemma, found by instance search: it needs no name and no
 * argument, so it never blocks the call site. A user's `inst : T` (no `✝`) stays explicit.
 */
export const isAnonymousInstance = (name: string) => /^inst✝/.test(name);

/** Identifiers written in a piece of Lean text (for the relevance heuristic). */
function identifiers(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of lex(text))
    if (!isTrivia(t.kind) && t.kind === 'ident') out.add(text.slice(t.start, t.end).split('.')[0]!);
  return out;
}

/**
 * The hypotheses a lemma keeps. Whole context: all. Otherwise the spec's heuristic: a
 * variable is relevant if it occurs in the target, or a relevant hypothesis's type
 * mentions it; a hypothesis whose type mentions a relevant variable is kept (this keeps
 * the propositions about relevant variables).
 */
export function relevantHyps(goal: Goal, wholeContext: boolean): Hypothesis[] {
  if (wholeContext) return goal.hyps;
  const hypNames = new Set(goal.hyps.flatMap((h) => h.names));
  const only = (xs: Set<string>) => [...xs].filter((x) => hypNames.has(x));
  const relevant = new Set(only(identifiers(goal.target)));
  const kept = new Set<Hypothesis>();
  for (let changed = true; changed;) {
    changed = false;
    for (const h of goal.hyps) {
      if (kept.has(h)) continue;
      const inType = identifiers(h.type);
      // A relevant variable, or a hypothesis about one.
      if (h.names.some((n) => relevant.has(n)) || only(inType).some((x) => relevant.has(x))) {
        kept.add(h);
        // What a relevant variable's type depends on is relevant too.
        for (const x of only(inType)) relevant.add(x);
        changed = true;
      }
    }
  }
  // `a b c : Nat` keeps only its relevant names.
  return goal.hyps
    .filter((h) => kept.has(h))
    .map((h) => (h.names.some((n) => relevant.has(n)) ? { ...h, names: h.names.filter((n) => relevant.has(n)) } : h));
}

export interface LemmaStatement {
  text: string;
  /** Arguments to apply the lemma at the call site, in order (explicit binders). */
  args: string[];
  /** True when a hypothesis had no usable name (the call site cannot be rebuilt). */
  inaccessible: boolean;
}

/** Re-indent a proof copied from elsewhere under a lemma header (its first line stays put; the rest at `indent`). */
function reindent(proof: string, indent = '  '): string {
  const lines = proof.split('\n');
  const rest = lines.slice(1).filter((l) => l.trim() !== '');
  const common = minOf(
    Infinity,
    rest.map((l) => l.length - l.trimStart().length),
  );
  return [
    lines[0],
    ...lines.slice(1).map((l) => (l.trim() === '' ? '' : `${indent}${l.slice(common === Infinity ? 0 : common)}`)),
  ].join('\n');
}

/** A lemma's statement as it is built: binders, then (from the first let-bound hypothesis on) its type's own binders. */
interface LemmaParts {
  binders: string[];
  /** `let x : T := v` and `∀ (h : P),` in the type: what follows a let-bound hypothesis depends on its value. */
  inType: string[];
  /** The names the proof introduces for `inType` before the original proof runs. */
  intros: string[];
  args: string[];
  inaccessible: boolean;
  /** Fresh names given so far (`x_1`, `x_2`, …). */
  fresh: number;
}

/**
 * `theorem name (x : T) [C] … : target := sorry` (or `:= proof`); inaccessible names get fresh ones.
 * A let-bound hypothesis (`n : ℕ := 3`) keeps its value: the goal is true because `n` is 3, so the
 * lemma states `let n : ℕ := 3` in its type (a binder `(n : ℕ)` would state the goal for every `n`,
 * often false), and the hypotheses after it follow it there as `∀ (h : P n),` (they may mention it).
 * The call site still applies the lemma to its explicit arguments (the application elaborator
 * reduces the `let` to reach the next binder), and the let-bound variables are no arguments.
 */
export function lemmaFromGoal(name: string, goal: Goal, wholeContext: boolean, proof?: string): LemmaStatement {
  const parts: LemmaParts = { binders: [], inType: [], intros: [], args: [], inaccessible: false, fresh: 0 };
  const rename = new Map<string, string>();
  const renamed = (text: string) => [...rename].reduce((s, [from, to]) => s.split(from).join(to), text.trim());
  for (const h of relevantHyps(goal, wholeContext)) {
    const type = renamed(h.type);
    if (h.names.every(isAnonymousInstance)) {
      for (const _ of h.names) (parts.inType.length ? parts.inType : parts.binders).push(instanceBinder(parts, type));
      continue;
    }
    const names = h.names.map((n) => accessibleName(n, rename, parts));
    if (h.value !== undefined) {
      // `x y : T := v` is not printed (each let variable has its own value); one name is the usual case.
      for (const n of names) parts.inType.push(`let ${n} : ${type} := ${renamed(h.value)}`);
      pushAll(parts.intros, names);
    } else if (parts.inType.length) {
      parts.inType.push(`∀ (${names.join(' ')} : ${type}),`);
      pushAll(parts.intros, names);
      pushAll(parts.args, names);
    } else {
      parts.binders.push(`(${names.join(' ')} : ${type})`);
      pushAll(parts.args, names);
    }
  }
  const target = [...parts.inType, renamed(goal.target)].join('\n    ');
  return {
    text: `theorem ${name}${parts.binders.length ? ` ${parts.binders.join(' ')}` : ''} :\n    ${target} := ${lemmaValue(parts, proof)}`,
    args: parts.args,
    inaccessible: parts.inaccessible,
  };
}

/** An anonymous instance hypothesis: a binder `[C]`, or `∀ [C],` in the type after a let (introduced unnamed). */
function instanceBinder(parts: LemmaParts, type: string): string {
  if (!parts.inType.length) return `[${type}]`;
  parts.intros.push('_');
  return `∀ [${type}],`;
}

/** The name a hypothesis gets in the lemma: its own, or a fresh one for an inaccessible `x✝` (which blocks the call site). */
function accessibleName(n: string, rename: Map<string, string>, parts: LemmaParts): string {
  if (!isInaccessible(n)) return n;
  parts.inaccessible = true;
  const r = `${n.replace(/✝\S*/, '') || 'x'}_${++parts.fresh}`;
  rename.set(n, r);
  return r;
}

/** `by sorry`, or the proof; after lets, both run once the type's own binders are introduced. */
function lemmaValue(parts: LemmaParts, proof: string | undefined): string {
  if (!parts.intros.length) return proof === undefined ? 'by\n  sorry' : reindent(proof.trim());
  const intro = `intro ${parts.intros.join(' ')}`;
  return proof === undefined ? `by\n  ${intro}\n  sorry` : `by\n  ${intro}\n  exact ${reindent(proof.trim(), '    ')}`;
}
