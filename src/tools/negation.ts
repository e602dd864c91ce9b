/**
 * verify_negation (verify_proof rule 6): the negated formal statement, and the check of the
 * candidate against it, done exactly as verify_proof checks a proof (the same implementation
 * runs on the negated statement).
 *
 * Each theorem `T : ∀ binders, P` of the statement becomes
 *   `T : ∀ (d₁ : τ₁) … (dₖ : τₖ), ¬ (∀ binders, P[dᵢ])`
 * where d₁ … dₖ are the sorried defs (body `sorry`) that occur directly in T's signature, in
 * their declaration order, each replaced in P by a bound variable; its proof becomes `sorry`.
 * A universe-polymorphic sorried def is not quantified (it cannot be a binder of one type), and
 * a sorried def reached only through another def's body stays a constant; each theorem is negated
 * on its own. A quantified def is dropped from the negated statement unless a declaration that
 * is not a negated theorem still uses it, so the disproof need not declare it.
 */
import type { ToolResponse } from '../contract/tools.ts';
import { applyEdits, replace, remove, type TextEdit } from '../syntax/edits.ts';
import { identOccurrences, resolveName } from '../syntax/names.ts';
import { firstTokenFrom, isCloser, isOpener } from '../syntax/significant.ts';
import { parseSource, splitName, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { squash } from './decl-verdict.ts';
import { namedDecls } from './selection.ts';
import type { ToolImpl } from './types.ts';
import { piType } from '../syntax/statements.ts';
import { pushAll } from '../util/arrays.ts';

const DEF_KINDS = new Set(['def', 'abbrev', 'opaque']);

export const isSorriedDef = (f: SourceFile, d: SourceDecl): boolean =>
  DEF_KINDS.has(d.kind) &&
  d.bodySpan !== undefined &&
  /^(by )?sorry$/.test(squash(f.text.slice(d.bodySpan.start, d.bodySpan.end)));

/** Universe parameters, explicit (`f.{u}`) or implicit (`Sort u`, `Type u`, `Type*`, `Type _` in its signature). */
export function isUniversePolymorphic(f: SourceFile, d: SourceDecl): boolean {
  const header = f.text.slice(d.headerSpan.start, d.headerSpan.end);
  if (d.name && header.includes(`${d.name}.{`)) return true;
  const sig = f.text.slice(d.signatureSpan.start, d.signatureSpan.end);
  return /\b(?:Sort|Type)\b\s*(?:\*|_|[A-Za-z_][\w'.]*|\()/.test(sig.replace(/\b(?:Sort|Type)\s+\d+\b/g, ''));
}

interface Occ {
  start: number;
  end: number;
  def: string;
}

/** The significant-token range covering the text range [from, to). */
function tokenRange(f: SourceFile, from: number, to: number): [number, number] {
  return [firstTokenFrom(f.sig, from), firstTokenFrom(f.sig, to)];
}

/** Occurrences in [from, to) of names that resolve to one of `targets` (longest written prefix wins). */
function occurrencesOf(
  f: SourceFile,
  d: SourceDecl,
  from: number,
  to: number,
  declared: ReadonlySet<string>,
  targets: ReadonlySet<string>,
): Occ[] {
  const scope = { namespace: d.namespace, opens: [...d.opens, ...d.localOpens] };
  const [k0, k1] = tokenRange(f, from, to);
  const out: Occ[] = [];
  for (const o of identOccurrences(f.sig, k0, k1)) {
    // `.foo` right after a dot is resolved by type, not by scope.
    if (o.sig > 0 && f.sig.text[o.sig - 1] === '.' && f.sig.end[o.sig - 1] === o.start) continue;
    const parts = splitName(o.name);
    for (let n = parts.length; n >= 1; n--) {
      const written = parts.slice(0, n).join('.');
      const hit = resolveName(written, scope, declared)[0];
      if (hit === undefined) continue;
      if (targets.has(hit)) out.push({ start: o.start, end: o.start + written.length, def: hit });
      break;
    }
  }
  return out;
}

/** Names bound by a declaration's leading binder groups (`(x y : A)`, `{n : ℕ}`, `[inst : C]`). */
function binderNames(f: SourceFile, d: SourceDecl): Set<string> {
  const [k0, k1] = tokenRange(f, d.signatureSpan.start, d.signatureSpan.end);
  const out = new Set<string>();
  let depth = 0;
  let group: string[] | undefined = [];
  for (let k = k0; k < k1; k++) {
    const t = f.sig.text[k]!;
    if (depth === 0 && t === ':') break;
    if (isOpener(f.sig, k)) {
      if (depth++ === 0) group = [];
    } else if (isCloser(f.sig, k)) depth = Math.max(0, depth - 1);
    else if (depth === 1 && t === ':' && group) {
      for (const n of group) out.add(n);
      group = undefined; // the binder's type follows
    } else if (depth === 1 && group && f.sig.kind[k] === 'ident') group.push(t);
    else if (depth === 0 && f.sig.kind[k] === 'ident') out.add(t);
  }
  return out;
}

export interface NegatedTheorem {
  name: string;
  /** Sorried defs quantified, in declaration order. */
  quantified: string[];
  /** The negated type, as written into the statement. */
  type: string;
}

export interface NegatedStatement {
  text: string;
  theorems: NegatedTheorem[];
  /** Theorems whose statement could not be read (no signature): left out, with the reason. */
  warnings: string[];
}

/** Bound names for the quantified defs: each def's last component, primed while it would capture another name of the signature. */
function boundNames(f: SourceFile, d: SourceDecl, occ: Occ[], quantified: SourceDecl[]): Map<string, string> {
  const replaced = new Set(occ.map((o) => o.start));
  const taken = new Set(
    identOccurrences(f.sig, ...tokenRange(f, d.signatureSpan.start, d.signatureSpan.end))
      .filter((o) => !replaced.has(o.start))
      .map((o) => splitName(o.name)[0]!),
  );
  const binder = new Map<string, string>();
  for (const q of quantified) {
    let b = splitName(q.fullName!).at(-1)!;
    while (taken.has(b)) b += "'";
    taken.add(b);
    binder.set(q.fullName!, b);
  }
  return binder;
}

interface NegationScope {
  f: SourceFile;
  declared: Set<string>;
  quantifiable: Set<string>;
  sorried: SourceDecl[];
}

/**
 * One theorem `P` becomes `∀ (quantified sorried defs), ¬ P`, with its proof replaced by `sorry`;
 * undefined when its statement cannot be read as a Pi type.
 */
function negateTheorem(
  scope: NegationScope,
  d: SourceDecl,
): { theorem: NegatedTheorem; edits: TextEdit[] } | undefined {
  const { f } = scope;
  // A name bound by the theorem's own binders is that binder, not a declaration (the source model knows no locals).
  const locals = binderNames(f, d);
  const occ = occurrencesOf(
    f,
    d,
    d.signatureSpan.start,
    d.signatureSpan.end,
    scope.declared,
    scope.quantifiable,
  ).filter((o) => !locals.has(splitName(f.text.slice(o.start, o.end))[0]!));
  const used = new Set(occ.map((o) => o.def));
  const quantified = scope.sorried.filter((s) => used.has(s.fullName!));
  const sigText = f.text.slice(d.signatureSpan.start, d.signatureSpan.end);
  const binder = boundNames(f, d, occ, quantified);
  // P with the quantified defs replaced by their bound names, as a Pi type.
  const local = applyEdits(
    sigText,
    occ.map((o) => replace(o.start - d.signatureSpan.start, o.end - d.signatureSpan.start, binder.get(o.def)!)),
  );
  const shifted = parseSource(`theorem ${d.name ?? 'x'}${local} := sorry`);
  const pi = shifted.decls[0] ? piType(shifted, shifted.decls[0]) : undefined;
  if (!pi) return undefined;
  const bound = quantified.map((q) => `(${binder.get(q.fullName!)} : ${piType(f, q) ?? '_'})`);
  const type = `${bound.length ? `∀ ${bound.join(' ')}, ` : ''}¬ (${pi})`;
  const [lead, trail] = [/^\s*/.exec(sigText)![0], sigText.slice(sigText.trimEnd().length)];
  const edits = [replace(d.signatureSpan.start, d.signatureSpan.end, `${lead}: ${type}${trail}`)];
  if (d.bodySpan) edits.push(replace(d.bodySpan.start, d.bodySpan.end, 'sorry'));
  return { theorem: { name: d.fullName!, quantified: quantified.map((q) => q.fullName!), type }, edits };
}

export function negateStatement(statement: string): NegatedStatement {
  const f = parseSource(statement);
  const decls = namedDecls(f);
  const sorried = decls.filter((d) => isSorriedDef(f, d) && !isUniversePolymorphic(f, d));
  const scope: NegationScope = {
    f,
    declared: new Set(decls.map((d) => d.fullName!)),
    quantifiable: new Set(sorried.map((d) => d.fullName!)),
    sorried,
  };
  const edits: TextEdit[] = [];
  const theorems: NegatedTheorem[] = [];
  const warnings: string[] = [];
  const stillUsed = new Set<string>();

  for (const d of decls) {
    if (d.kind !== 'theorem') {
      // Any other declaration that uses a sorried def keeps it declared (and constant there).
      for (const o of occurrencesOf(f, d, d.command.start, d.command.end, scope.declared, scope.quantifiable))
        if (o.def !== d.fullName) stillUsed.add(o.def);
      continue;
    }
    const negated = negateTheorem(scope, d);
    if (!negated) {
      warnings.push(`'${d.fullName}': no statement to negate`);
      continue;
    }
    theorems.push(negated.theorem);
    pushAll(edits, negated.edits);
  }
  // Quantified everywhere they occur directly and used by nothing else: the disproof need not declare them.
  const quantifiedSomewhere = new Set(theorems.flatMap((t) => t.quantified));
  for (const s of sorried) {
    if (quantifiedSomewhere.has(s.fullName!) && !stillUsed.has(s.fullName!))
      edits.push(remove(s.command.start, s.command.end));
  }
  return { text: applyEdits(statement, edits), theorems, warnings };
}

/**
 * verify_proof with rule 6: the plain check, and with `verify_negation` the same check of the
 * candidate against the negated statement, reported in `negation`.
 */
export function withNegation(base: ToolImpl<'verify_proof'>): ToolImpl<'verify_proof'> {
  return {
    ...base,
    async run(req, ctx) {
      const main = await base.run({ ...req, verify_negation: false }, ctx);
      if (!req.verify_negation) return main;
      const t0 = performance.now();
      const negated = negateStatement(req.formal_statement);
      const neg: ToolResponse<'verify_proof'> = await base.run(
        { ...req, formal_statement: negated.text, verify_negation: false },
        ctx,
      );
      neg.tool_messages.warnings.unshift(...negated.warnings);
      return {
        ...main,
        negation: {
          okay: neg.okay && negated.theorems.length > 0,
          tool_messages: neg.tool_messages,
          failed_declarations: neg.failed_declarations,
        },
        timings: { ...main.timings, negation_ms: Math.round(performance.now() - t0) },
      };
    },
  };
}
