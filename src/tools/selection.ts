/**
 * Which declarations a request selects, shared by every tool: `names` (exact full name
 * first; otherwise a short name resolving to exactly one namespaced declaration; several
 * matches are an error listing the candidates), `indices` (0-based, negative from the
 * end), and `theorems_only` (default true: select among theorems/lemmas only).
 */
import { lastComponent, NameIndex } from '../syntax/names.ts';
import type { SourceDecl, SourceFile } from '../syntax/source.ts';

export interface SelectionRequest {
  names?: string[] | undefined;
  indices?: number[] | undefined;
  theorems_only?: boolean | undefined;
}

export interface Selection {
  /** Selected declarations, in file order. */
  decls: SourceDecl[];
  /** The declarations the request selects among (theorems, or all). */
  candidates: SourceDecl[];
  /** True when names or indices narrowed the selection (elaboration may then skip other proofs). */
  explicit: boolean;
  errors: string[];
}

/**
 * The name a declaration is addressed by in messages and results. An `example` or anonymous
 * instance has none: it is named by where it starts, `_<kind>_<line>_<column>` (1-based line,
 * 0-based code-point column, Lean's convention), as AXLE names them since v1.3.0 (CHANGELOG.md
 * v1.3.0 and docs/tools/extract_decls.md of AxiomMath/axiom-lean-engine: `_example_12_0`), so
 * the name is stable and unique even when several share a line. AXLE shows only the example
 * form; an anonymous instance gets `_instance_<line>_<column>` by the same rule (docs/tools.md).
 */
export function declName(d: SourceDecl, file: Pick<SourceFile, 'lines'>): string {
  if (d.fullName !== undefined) return d.fullName;
  if (d.kind !== 'example' && d.kind !== 'instance') return d.name ?? d.keyword;
  const at = file.lines.toLean(d.headerSpan.start);
  return `_${d.kind}_${at.line}_${at.column}`;
}

/** The declarations Lean can be asked about by name (`#check`, `#print axioms`): named, and not instances. */
export const namedDecls = (file: Pick<SourceFile, 'decls'>): SourceDecl[] =>
  file.decls.filter((d) => d.fullName !== undefined && d.kind !== 'instance');

/** How many candidates an ambiguity error lists (a name may match thousands). */
const MAX_LISTED = 10;

/** Pick the declarations `names` select into `picked` (indexed once: each name costs the declarations sharing its last component). */
function selectByNames(
  file: Pick<SourceFile, 'lines'>,
  candidates: SourceDecl[],
  names: string[],
  theoremsOnly: boolean,
  picked: Set<SourceDecl>,
  errors: string[],
): void {
  const byFull = new Map<string, SourceDecl[]>();
  const byWritten = new Map<string, string[]>();
  const index = new NameIndex();
  for (const d of candidates) {
    if (d.fullName === undefined) {
      // An example or anonymous instance is selected by the name results give it (`_example_12_0`).
      if (d.kind === 'example' || d.kind === 'instance') byFull.set(declName(d, file), [d]);
      continue;
    }
    const group = byFull.get(d.fullName);
    if (group) group.push(d);
    else byFull.set(d.fullName, [d]);
    index.add(d.fullName);
    if (d.name !== undefined)
      byWritten.set(d.name, [...new Set([...(byWritten.get(d.name) ?? []), d.fullName])].slice(0, MAX_LISTED + 1));
  }
  const done = new Set<string>();
  for (const name of names) {
    if (done.has(name)) continue;
    done.add(name);
    // Exact full name first, else a short name resolving to namespaced declarations.
    const exact = byFull.get(name);
    if (exact) {
      for (const d of exact) picked.add(d);
      continue;
    }
    const distinct = new Set<string>();
    for (const f of index.withLast(lastComponent(name))) {
      if (f.length > name.length + 1 && f.charCodeAt(f.length - name.length - 1) === 46 && f.endsWith(name))
        distinct.add(f);
    }
    for (const f of byWritten.get(name) ?? []) distinct.add(f);
    if (distinct.size === 1) {
      for (const d of byFull.get([...distinct][0]!)!) picked.add(d);
    } else if (distinct.size > 1) {
      const listed = [...distinct].slice(0, MAX_LISTED);
      const more = distinct.size > MAX_LISTED ? ` and ${distinct.size - MAX_LISTED} more` : '';
      errors.push(`Name '${clip(name)}' is ambiguous; candidates: ${listed.join(', ')}${more}`);
    } else
      errors.push(
        `Declaration '${clip(name)}' not found${theoremsOnly ? ' among theorems (set theorems_only to false to select other kinds)' : ''}`,
      );
  }
}

export function selectDeclarations(file: SourceFile, req: SelectionRequest): Selection {
  const theoremsOnly = req.theorems_only ?? true;
  const candidates = file.decls.filter((d) => !theoremsOnly || d.kind === 'theorem');
  const errors: string[] = [];
  const picked = new Set<SourceDecl>();
  if (req.names !== undefined) {
    selectByNames(file, candidates, req.names, theoremsOnly, picked, errors);
  } else if (req.indices !== undefined) {
    const seen = new Set<number>();
    for (const i of req.indices) {
      if (seen.has(i)) continue;
      seen.add(i);
      const j = i < 0 ? candidates.length + i : i;
      const d = candidates[j];
      if (d) picked.add(d);
      else
        errors.push(
          `Index ${i} is out of range: there are ${candidates.length} ${theoremsOnly ? 'theorems' : 'declarations'}`,
        );
    }
  } else {
    for (const d of candidates) picked.add(d);
  }
  return {
    decls: file.decls.filter((d) => picked.has(d)),
    candidates,
    explicit: req.names !== undefined || req.indices !== undefined,
    errors,
  };
}

/** A requested name as echoed in a message: at most 200 characters. */
const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
