/**
 * Renaming declarations in Lean source, references included (the rules are rename's, listed in
 * src/tools/rename.ts); shared by the rename and merge tools.
 */
import { isCloser, isOpener } from './significant.ts';
import { applyEdits, replace, type TextEdit } from './edits.ts';
import {
  identOccurrences,
  lastComponent,
  NameIndex,
  resolveName,
  type IdentOccurrence,
  type ResolveScope,
} from './names.ts';
import { parseSource, splitName, type SourceDecl, type SourceFile } from './source.ts';

/** Constructor full names of an inductive (`| c`) or structure (`c ::`, else `mk`). */
export function constructors(file: SourceFile, d: SourceDecl): string[] {
  if (!d.fullName || !d.bodySig) return [];
  const { sig } = file;
  const [from, to] = d.bodySig;
  const out: string[] = [];
  if (d.kind === 'inductive' || d.kind === 'class inductive') {
    let depth = 0;
    for (let k = from; k < to; k++) {
      const t = sig.text[k]!;
      if (isOpener(sig, k)) depth++;
      else if (isCloser(sig, k)) depth = Math.max(0, depth - 1);
      else if (depth === 0 && t === '|' && sig.kind[k + 1] === 'ident') out.push(`${d.fullName}.${sig.text[k + 1]}`);
    }
  } else if (d.kind === 'structure' || d.kind === 'class') {
    const named = sig.text[from] === 'where' && sig.kind[from + 1] === 'ident' && sig.text[from + 2] === '::';
    out.push(`${d.fullName}.${named ? sig.text[from + 1] : 'mk'}`);
  }
  return out;
}

/** How to write `full` from inside namespace `ns` (drop the namespace prefix when it applies). */
export function writtenFrom(full: string, ns: string): string {
  if (!ns) return full;
  if (full.startsWith(`${ns}.`)) return full.slice(ns.length + 1);
  return `_root_.${full}`;
}

const lastPart = (n: string) => splitName(n).at(-1)!;
const parent = (n: string) => splitName(n).slice(0, -1).join('.');

/** End offset of each component of a dotted name (`«a.b»` parts kept whole), in one pass. */
function componentEnds(name: string): number[] {
  const ends: number[] = [];
  let inG = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0xab) inG = true;
    else if (c === 0xbb) inG = false;
    else if (c === 46 && !inG) ends.push(i);
  }
  ends.push(name.length);
  return ends;
}

export interface RenameResult {
  output: string;
  errors: string[];
  warnings: string[];
  renamed: number;
}

/** `maxChars`: the longest output allowed (OutputLimitError, raised before it is built). */
export function renameInSource(text: string, mapping: Record<string, string>, maxChars = Infinity): RenameResult {
  const file = parseSource(text);
  const { declared, ctorsOf } = declaredNames(file);
  const { renames, errors, warnings } = planRenames(file, mapping, declared, ctorsOf);
  const { edits, nameTokens } = declarationEdits(file, renames);
  const references = new ReferenceEdits(file, declared, renames);
  for (const occ of identOccurrences(file.sig, 0, file.sig.length, true)) {
    if (nameTokens.has(occ.start)) continue;
    const edit = references.editOf(occ);
    if (edit) edits.push(edit);
  }
  return { output: applyEdits(text, edits, maxChars), errors, warnings, renamed: renames.size };
}

/** The file's declared names, constructors included, and each declaration's constructors. */
function declaredNames(file: SourceFile): { declared: NameIndex; ctorsOf: Map<string, string[]> } {
  const declared = new NameIndex();
  const ctorsOf = new Map<string, string[]>();
  for (const d of file.decls) {
    if (!d.fullName) continue;
    declared.add(d.fullName);
    const cs = constructors(file, d);
    for (const c of cs) declared.add(c);
    ctorsOf.set(d.fullName, cs);
  }
  return { declared, ctorsOf };
}

/** Old full name → new full name, for the mapping's declarations and the constructors that follow their type. */
function planRenames(
  file: SourceFile,
  mapping: Record<string, string>,
  declared: NameIndex,
  ctorsOf: Map<string, string[]>,
): { renames: Map<string, string>; errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const renames = new Map<string, string>();
  const declNames = new Set(file.decls.map((d) => d.fullName));
  for (const [oldName, newName] of Object.entries(mapping)) {
    if (!declNames.has(oldName)) {
      errors.push(
        `Declaration '${oldName.length > 200 ? `${oldName.slice(0, 200)}…` : oldName}' not found (rename takes fully qualified names)`,
      );
      continue;
    }
    if (declared.has(newName) && !(newName in mapping))
      warnings.push(`'${newName}' is already declared in this file; renaming '${oldName}' to it will clash`);
    renames.set(oldName, newName);
    // Constructors follow their type.
    for (const c of ctorsOf.get(oldName) ?? [])
      if (!(c in mapping)) renames.set(c, `${newName}.${c.slice(oldName.length + 1)}`);
  }
  return { renames, errors, warnings };
}

/** The renamed declarations' own names, written from their namespace, and where those name tokens start. */
function declarationEdits(
  file: SourceFile,
  renames: Map<string, string>,
): { edits: TextEdit[]; nameTokens: Set<number> } {
  const edits: TextEdit[] = [];
  const nameTokens = new Set<number>();
  for (const d of file.decls) {
    if (!d.fullName || !d.nameSpan || !renames.has(d.fullName)) continue;
    edits.push(replace(d.nameSpan.start, d.nameSpan.end, writtenFrom(renames.get(d.fullName)!, d.namespace)));
    nameTokens.add(d.nameSpan.start);
  }
  return { edits, nameTokens };
}

/** The edit of each reference, occurrence by occurrence in source order (the command index only moves forward). */
class ReferenceEdits {
  private cmdIndex = 0;
  private readonly dotTargets = new Map<string, string | undefined>();

  constructor(
    private readonly file: SourceFile,
    private readonly declared: NameIndex,
    private readonly renames: Map<string, string>,
  ) {}

  editOf(occ: IdentOccurrence): TextEdit | undefined {
    const { sig } = this.file;
    const ends = componentEnds(occ.name);
    // `.foo` right after a dot is dot notation or an anonymous constructor: resolved by type, not by scope.
    const prevIsDot =
      occ.field === true || (occ.sig > 0 && sig.text[occ.sig - 1] === '.' && sig.end[occ.sig - 1] === occ.start);
    if (!prevIsDot) {
      const found = this.resolvedPrefix(occ, ends);
      if (found) return this.qualifiedEdit(occ, found.written, found.hit);
    }
    // Dot notation on a value: `h.foo` (h not a declaration) or `(e).foo`; not `.foo` after a space (anonymous constructor).
    const afterValue =
      occ.field === true || (prevIsDot && occ.sig > 1 && sig.end[occ.sig - 2] === sig.start[occ.sig - 1]);
    if (ends.length < 2 && !afterValue) return undefined;
    const component = lastComponent(occ.name);
    const to = this.dotTarget(component);
    return to === undefined ? undefined : replace(occ.end - component.length, occ.end, to);
  }

  /** The scope of the command holding `offset`. */
  private scopeAt(offset: number): ResolveScope {
    const { commands, scopes } = this.file;
    while (this.cmdIndex + 1 < commands.length && commands[this.cmdIndex + 1]!.start <= offset) this.cmdIndex++;
    return scopes[this.cmdIndex] ?? { namespace: '', opens: [] };
  }

  /**
   * The longest prefix of the written name that resolves to a declaration of the file, and that declaration.
   * Only prefixes ending in a component some declaration ends in can resolve: the others cost one map lookup.
   */
  private resolvedPrefix(occ: IdentOccurrence, ends: number[]): { written: string; hit: string } | undefined {
    const scope = this.scopeAt(occ.start);
    for (let n = ends.length; n >= 1; n--) {
      const from = n === 1 ? 0 : ends[n - 2]! + 1;
      if (!this.declared.hasLast(occ.name.slice(from, ends[n - 1]))) continue;
      const written = occ.name.slice(0, ends[n - 1]);
      const hit = resolveName(written, scope, this.declared)[0];
      if (hit !== undefined) return { written, hit };
    }
    return undefined;
  }

  /** `written` (resolving to `hit`) rewritten for hit's new name, when hit is renamed. */
  private qualifiedEdit(occ: IdentOccurrence, written: string, hit: string): TextEdit | undefined {
    const target = this.renames.get(hit);
    if (target === undefined) return undefined;
    // Keep the written qualification: the namespace the resolution supplied (itself renamed, if it was).
    const bare = written.replace(/^_root_\./, '');
    const droppedNs = hit.length > bare.length ? hit.slice(0, hit.length - bare.length - 1) : '';
    const ns = this.renames.get(droppedNs) ?? droppedNs;
    const newWritten = written.startsWith('_root_.')
      ? `_root_.${target}`
      : ns && target.startsWith(`${ns}.`)
        ? target.slice(ns.length + 1)
        : target;
    return replace(occ.start, occ.start + written.length, newWritten);
  }

  /**
   * Dot notation `x.foo` / `(e).foo` can only be matched by the last component; do it only when
   * that component names exactly one renamed declaration and no other declaration of the file.
   */
  private dotTarget(component: string): string | undefined {
    if (!this.dotTargets.has(component)) this.dotTargets.set(component, this.computeDotTarget(component));
    return this.dotTargets.get(component);
  }

  private computeDotTarget(component: string): string | undefined {
    const owners = this.declared.withLast(component);
    if (owners.length !== 1 || !this.renames.has(owners[0]!)) return undefined;
    const from = owners[0]!;
    const to = this.renames.get(from)!;
    // Only a change of the last component can follow dot notation (the receiver's type decides the namespace).
    return parent(from) !== '' && parent(from) === parent(to) ? lastPart(to) : undefined;
  }
}
