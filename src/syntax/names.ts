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
  /** A projection's field (`(e).foo`, written after a closer or field index): never resolved by scope. */
  field?: boolean;
}

/** Words that are identifier-shaped keywords in terms and tactics, never references. */
const NOT_REFERENCES = new Set([
  'fun',
  'λ',
  'by',
  'have',
  'haveI',
  'let',
  'letI',
  'show',
  'from',
  'at',
  'with',
  'then',
  'else',
  'if',
  'match',
  'do',
  'in',
  'using',
  'only',
  'calc',
  'suffices',
  'obtain',
  'sorry',
  'admit',
  'this',
  'Type',
  'Sort',
  'Prop',
  'forall',
  'exists',
  '_',
  'theorem',
  'lemma',
  'def',
  'abbrev',
  'instance',
  'example',
  'structure',
  'class',
  'inductive',
  'where',
  'extends',
  'deriving',
  'namespace',
  'section',
  'end',
  'open',
  'variable',
  'universe',
  'private',
  'protected',
  'noncomputable',
  'termination_by',
  'decreasing_by',
  'return',
  'for',
  'unless',
  'mut',
  'set_option',
]);

/**
 * Identifier tokens in significant range [from, to) that may refer to declarations; with
 * `withFields`, also the field names of projections `(e).foo` (dot notation, marked `field`).
 */
export function identOccurrences(sig: SigTokens, from = 0, to = sig.length, withFields = false): IdentOccurrence[] {
  const out: IdentOccurrence[] = [];
  for (let k = from; k < to; k++) {
    if (withFields && sig.kind[k] === 'field') {
      // `(e).foo`: the field name after the dot, resolved by the receiver's type (dot notation).
      out.push({ name: sig.text[k]!.slice(1), start: sig.start[k]! + 1, end: sig.end[k]!, sig: k, field: true });
      continue;
    }
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
 * The last component of a dotted name (a `«…»` part kept whole). Looks only at the end of
 * the name: callers ask for every prefix of a long dotted name, so a scan of the whole name
 * each time would be quadratic.
 */
export function lastComponent(name: string): string {
  // `«…»` parts do not nest, so a name ending in `»` ends with the part from the last `«`.
  if (name.charCodeAt(name.length - 1) === 0xbb) {
    const open = name.lastIndexOf('«');
    if (open >= 0) return name.slice(open);
  }
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * Full names indexed by their last component, so resolving a written name looks only at
 * the declarations it could end in, never at every namespace prefix × open (which is
 * quadratic in a deep `namespace` nesting or a long `open` list).
 */
export class NameIndex {
  private readonly byLast = new Map<string, string[]>();
  private readonly all = new Set<string>();

  constructor(names: Iterable<string> = []) {
    for (const n of names) this.add(n);
  }

  add(name: string): void {
    if (this.all.has(name)) return;
    this.all.add(name);
    const last = lastComponent(name);
    const list = this.byLast.get(last);
    if (list) list.push(name);
    else this.byLast.set(last, [name]);
  }

  has(name: string): boolean {
    return this.all.has(name);
  }

  get size(): number {
    return this.all.size;
  }

  /** Is some indexed name's last component `component`? */
  hasLast(component: string): boolean {
    return this.byLast.has(component);
  }

  /** The indexed names whose last component is `component`. */
  withLast(component: string): readonly string[] {
    return this.byLast.get(component) ?? [];
  }
}

/** Is `p` (possibly '') a namespace prefix of `ns` on a component boundary? */
const isNsPrefix = (p: string, ns: string) =>
  p === '' || (ns.length >= p.length && ns.startsWith(p) && (ns.length === p.length || ns.charCodeAt(p.length) === 46));

/**
 * Resolution against a plain Set (which its owner may still be filling): every namespace
 * prefix × open candidate is looked up. Cost: namespace depth × (1 + opens) lookups per
 * call; callers resolving many names should pass a NameIndex instead.
 */
function resolveInSet(
  written: string,
  scope: ResolveScope,
  declared: ReadonlySet<string>,
): { name: string; group: number }[] {
  const out: { name: string; group: number }[] = [];
  const seen = new Set<string>();
  const add = (n: string, group: number) => {
    if (declared.has(n) && !seen.has(n)) {
      seen.add(n);
      out.push({ name: n, group });
    }
  };
  const prefixes = namespacePrefixes(scope.namespace);
  for (const p of prefixes) add(p ? `${p}.${written}` : written, 0);
  for (const o of scope.opens) for (const p of prefixes) add(p ? `${p}.${o}.${written}` : `${o}.${written}`, 1);
  return out;
}

/**
 * Full names in `declared` that `written` can denote from `scope`, most specific first:
 * the current namespace and its parents, then opened namespaces (themselves relative to
 * the current namespace too), then `_root_`. Cost: the declarations sharing `written`'s
 * last component times (1 + opens), whatever the namespace depth.
 */
export function resolveName(written: string, scope: ResolveScope, declared: ReadonlySet<string> | NameIndex): string[] {
  return resolveHits(written, scope, declared).map((h) => h.name);
}

/** How a written name reached a declaration: as written from the root, through the namespace, or an open. */
export type ResolvedVia = 'root' | 'namespace' | 'open';

/** The most specific declaration `written` denotes from `scope`, and how. */
export function resolveFirst(
  written: string,
  scope: ResolveScope,
  declared: ReadonlySet<string> | NameIndex,
): { full: string; via: ResolvedVia } | undefined {
  if (written.startsWith('_root_.')) return undefined;
  const h = resolveHits(written, scope, declared)[0];
  if (!h) return undefined;
  return { full: h.name, via: h.group === 1 ? 'open' : h.name === written ? 'root' : 'namespace' };
}

function resolveHits(
  written: string,
  scope: ResolveScope,
  declared: ReadonlySet<string> | NameIndex,
): { name: string; group: number }[] {
  if (written.startsWith('_root_.')) {
    const n = written.slice('_root_.'.length);
    return declared.has(n) ? [{ name: n, group: 0 }] : [];
  }
  if (!(declared instanceof NameIndex)) return resolveInSet(written, scope, declared);
  const idx = declared;
  const ns = scope.namespace;
  const sameLast = idx.withLast(lastComponent(written));
  // Many declarations may share the last component (`N1.foo` … `N70000.foo`): then building the
  // few names the scope can reach and looking each up is cheaper than testing every one of them
  // (one scan per occurrence made rename quadratic).
  if (sameLast.length > (componentCount(ns) + 1) * (scope.opens.length + 1))
    return sortHits(resolveByCandidates(written, scope, idx));
  const hits: Hit[] = [];
  for (const f of sameLast) {
    let p: string;
    if (f === written) p = '';
    else if (f.length > written.length + 1 && f.charCodeAt(f.length - written.length - 1) === 46 && f.endsWith(written))
      p = f.slice(0, f.length - written.length - 1);
    else continue;
    // Directly through the namespace or one of its parents (innermost, i.e. longest, first).
    if (isNsPrefix(p, ns)) {
      hits.push({ name: f, group: 0, open: 0, depth: -p.length });
      continue;
    }
    // Through an open `o`, itself relative to a namespace prefix: p = prefix.o.
    for (let i = 0; i < scope.opens.length; i++) {
      const o = scope.opens[i]!;
      if (p === o) hits.push({ name: f, group: 1, open: i, depth: 0 });
      else if (
        p.length > o.length &&
        p.charCodeAt(p.length - o.length - 1) === 46 &&
        p.endsWith(o) &&
        isNsPrefix(p.slice(0, p.length - o.length - 1), ns)
      ) {
        hits.push({ name: f, group: 1, open: i, depth: -(p.length - o.length - 1) });
      } else continue;
      break;
    }
  }
  return sortHits(hits);
}

interface Hit {
  name: string;
  group: number;
  open: number;
  depth: number;
}

/** Through the namespace first (innermost first), then through the opens in their order. */
function sortHits(hits: Hit[]): Hit[] {
  if (hits.length > 1) hits.sort((a, b) => a.group - b.group || a.open - b.open || a.depth - b.depth);
  return hits;
}

const componentCount = (ns: string): number => {
  let n = ns === '' ? 0 : 1;
  for (let i = 0; i < ns.length; i++) if (ns.charCodeAt(i) === 46) n++;
  return n;
};

/**
 * The hits of resolveHits, found by building each name `written` can denote from `scope`
 * (`p.written` for each namespace prefix p, `q.o.written` for each open o and prefix q) and
 * looking it up: (depth + 1) × (opens + 1) lookups, whatever the number of declarations.
 */
function resolveByCandidates(written: string, scope: ResolveScope, idx: NameIndex): Hit[] {
  const ns = scope.namespace;
  const prefixes = [''];
  for (let i = 0; i < ns.length; i++) if (ns.charCodeAt(i) === 46) prefixes.push(ns.slice(0, i));
  if (ns !== '') prefixes.push(ns);
  const join = (p: string, q: string) => (p === '' ? q : `${p}.${q}`);
  const hits: Hit[] = [];
  const seen = new Set<string>();
  for (const p of prefixes) {
    const f = join(p, written);
    if (idx.has(f) && !seen.has(f)) {
      seen.add(f);
      hits.push({ name: f, group: 0, open: 0, depth: -p.length });
    }
  }
  scope.opens.forEach((o, i) => {
    for (const q of prefixes) {
      const f = join(join(q, o), written);
      if (idx.has(f) && !seen.has(f)) {
        seen.add(f);
        hits.push({ name: f, group: 1, open: i, depth: -q.length });
      }
    }
  });
  return hits;
}

/** Declarations a short or full name selects: exact full name first, else every declaration whose full name ends with `.name`. */
export function lookupDeclarations(file: Pick<SourceFile, 'decls'>, name: string): SourceDecl[] {
  const exact = file.decls.filter((d) => d.fullName === name);
  if (exact.length > 0) return exact;
  return file.decls.filter((d) => d.fullName !== undefined && (d.fullName.endsWith(`.${name}`) || d.name === name));
}
