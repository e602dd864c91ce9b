/**
 * Which declarations a request selects, shared by every tool: `names` (exact full name
 * first; otherwise a short name resolving to exactly one namespaced declaration; several
 * matches are an error listing the candidates), `indices` (0-based, negative from the
 * end), and `theorems_only` (default true: select among theorems/lemmas only).
 */
import { lookupDeclarations } from '../syntax/names.ts';
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

/** The name a declaration is addressed by in messages and selections. */
export const declName = (d: SourceDecl): string => d.fullName ?? (d.kind === 'example' ? 'example' : d.name ?? d.keyword);

/** The declarations Lean can be asked about by name (`#check`, `#print axioms`): named, and not instances. */
export const namedDecls = (file: Pick<SourceFile, 'decls'>): SourceDecl[] => file.decls.filter((d) => d.fullName !== undefined && d.kind !== 'instance');

export function selectDeclarations(file: SourceFile, req: SelectionRequest): Selection {
  const theoremsOnly = req.theorems_only ?? true;
  const candidates = file.decls.filter((d) => !theoremsOnly || d.kind === 'theorem');
  const errors: string[] = [];
  const picked = new Set<SourceDecl>();
  if (req.names !== undefined) {
    for (const name of req.names) {
      // Exact full name first, else a short name resolving to namespaced declarations.
      const found = lookupDeclarations({ decls: candidates }, name);
      const distinct = [...new Set(found.map((d) => d.fullName))];
      if (found.length > 0 && (distinct.length === 1 || found[0]!.fullName === name)) for (const d of found) picked.add(d);
      else if (distinct.length > 1) errors.push(`Name '${name}' is ambiguous; candidates: ${distinct.join(', ')}`);
      else errors.push(`Declaration '${name}' not found${theoremsOnly ? ' among theorems (set theorems_only to false to select other kinds)' : ''}`);
    }
  } else if (req.indices !== undefined) {
    for (const i of req.indices) {
      const j = i < 0 ? candidates.length + i : i;
      const d = candidates[j];
      if (d) picked.add(d);
      else errors.push(`Index ${i} is out of range: there are ${candidates.length} ${theoremsOnly ? 'theorems' : 'declarations'}`);
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
