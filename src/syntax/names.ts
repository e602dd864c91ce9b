/**
 * Identifier occurrences and name resolution against the declarations of one file:
 * which declaration a written name can denote, given the namespaces and `open`s in
 * scope (Lean's rules, restricted to what the file itself declares).
 */
import type { SigTokens } from './significant.ts';
import type { SourceDecl, SourceFile } from './source.ts';

export interface IdentOccurrence {
  name: string;
  start: number;
  end: number;
  sig: number;
}

/** Words that are identifier-shaped keywords in terms and tactics, never references. */
const NOT_REFERENCES = new Set([
  'fun', 'λ', 'by', 'have', 'haveI', 'let', 'letI', 'show', 'from', 'at', 'with', 'then', 'else', 'if', 'match', 'do', 'in',
  'using', 'only', 'calc', 'suffices', 'obtain', 'sorry', 'admit', 'this', 'Type', 'Sort', 'Prop', 'forall', 'exists', '_',
  'theorem', 'lemma', 'def', 'abbrev', 'instance', 'example', 'structure', 'class', 'inductive', 'where', 'extends',
  'deriving', 'namespace', 'section', 'end', 'open', 'variable', 'universe', 'private', 'protected', 'noncomputable',
  'termination_by', 'decreasing_by', 'return', 'for', 'unless', 'mut', 'set_option',
]);

/** Identifier tokens in significant range [from, to) that may refer to declarations. */
export function identOccurrences(sig: SigTokens, from = 0, to = sig.length): IdentOccurrence[] {
  const out: IdentOccurrence[] = [];
  for (let k = from; k < to; k++) {
    if (sig.kind[k] !== 'ident') continue;
    const name = sig.text[k]!;
    if (NOT_REFERENCES.has(name)) continue;
    // `x.1`: the field index is a separate token; `.foo` after a space is anonymous-constructor notation.
    out.push({ name, start: sig.start[k]!, end: sig.end[k]!, sig: k });
  }
  return out;
}

export interface ResolveScope {
  namespace: string;
  opens: readonly string[];
}

/** Namespace prefixes from the innermost outwards: `A.B` → [`A.B`, `A`, ``]. */
export function namespacePrefixes(ns: string): string[] {
  const out: string[] = [];
  let cur = ns;
  while (cur) {
    out.push(cur);
    const i = cur.lastIndexOf('.');
    cur = i < 0 ? '' : cur.slice(0, i);
  }
  out.push('');
  return out;
}

/**
 * Full names in `declared` that `written` can denote from `scope`, most specific first:
 * the current namespace and its parents, then opened namespaces (themselves relative to
 * the current namespace too), then `_root_`.
 */
export function resolveName(written: string, scope: ResolveScope, declared: ReadonlySet<string>): string[] {
  if (written.startsWith('_root_.')) {
    const n = written.slice('_root_.'.length);
    return declared.has(n) ? [n] : [];
  }
  const out: string[] = [];
  const add = (n: string) => {
    if (declared.has(n) && !out.includes(n)) out.push(n);
  };
  for (const p of namespacePrefixes(scope.namespace)) add(p ? `${p}.${written}` : written);
  for (const o of scope.opens) for (const p of namespacePrefixes(scope.namespace)) add(p ? `${p}.${o}.${written}` : `${o}.${written}`);
  return out;
}

/** Declarations a short or full name selects: exact full name first, else every declaration whose full name ends with `.name`. */
export function lookupDeclarations(file: Pick<SourceFile, 'decls'>, name: string): SourceDecl[] {
  const exact = file.decls.filter((d) => d.fullName === name);
  if (exact.length > 0) return exact;
  return file.decls.filter((d) => d.fullName !== undefined && (d.fullName.endsWith(`.${name}`) || d.name === name));
}
