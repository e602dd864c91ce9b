/**
 * Renaming declarations in Lean source, references included (the rules are rename's, listed in
 * src/tools/rename.ts); shared by the rename and merge tools.
 */
import { isCloser, isOpener } from './significant.ts';
import { applyEdits, replace, type TextEdit } from './edits.ts';
import { identOccurrences, lastComponent, NameIndex, resolveName } from './names.ts';
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
  const errors: string[] = [];
  const warnings: string[] = [];
  const declared = new NameIndex();
  const ctorsOf = new Map<string, string[]>();
  for (const d of file.decls) {
    if (!d.fullName) continue;
    declared.add(d.fullName);
    const cs = constructors(file, d);
    for (const c of cs) declared.add(c);
    ctorsOf.set(d.fullName, cs);
  }

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

  const edits: TextEdit[] = [];
  const nameTokens = new Set<number>();
  for (const d of file.decls) {
    if (!d.fullName || !d.nameSpan || !renames.has(d.fullName)) continue;
    edits.push(replace(d.nameSpan.start, d.nameSpan.end, writtenFrom(renames.get(d.fullName)!, d.namespace)));
    nameTokens.add(d.nameSpan.start);
  }

  // Dot notation `x.foo` / `(e).foo` can only be matched by the last component; do it only when
  // that component names exactly one renamed declaration and no other declaration of the file.
  const dotTargets = new Map<string, string | undefined>();
  const dotTarget = (component: string): string | undefined => {
    if (!dotTargets.has(component)) dotTargets.set(component, computeDotTarget(component));
    return dotTargets.get(component);
  };
  const computeDotTarget = (component: string): string | undefined => {
    const owners = declared.withLast(component);
    if (owners.length !== 1 || !renames.has(owners[0]!)) return undefined;
    const from = owners[0]!;
    const to = renames.get(from)!;
    // Only a change of the last component can follow dot notation (the receiver's type decides the namespace).
    return parent(from) !== '' && parent(from) === parent(to) ? lastPart(to) : undefined;
  };

  let cmdIndex = 0;
  for (const occ of identOccurrences(file.sig, 0, file.sig.length, true)) {
    if (nameTokens.has(occ.start)) continue;
    while (cmdIndex + 1 < file.commands.length && file.commands[cmdIndex + 1]!.start <= occ.start) cmdIndex++;
    const scope = file.scopes[cmdIndex] ?? { namespace: '', opens: [] };
    const ends = componentEnds(occ.name);
    // `.foo` right after a dot is dot notation or an anonymous constructor: resolved by type, not by scope.
    const prevIsDot =
      occ.field === true ||
      (occ.sig > 0 && file.sig.text[occ.sig - 1] === '.' && file.sig.end[occ.sig - 1] === occ.start);
    let done = prevIsDot;
    // The longest prefix of the written name that resolves to a renamed declaration. Only prefixes
    // ending in a component some declaration ends in can resolve: the others cost one map lookup.
    for (let n = ends.length; n >= 1 && !done; n--) {
      const from = n === 1 ? 0 : ends[n - 2]! + 1;
      if (!declared.hasLast(occ.name.slice(from, ends[n - 1]))) continue;
      const written = occ.name.slice(0, ends[n - 1]);
      const hit = resolveName(written, scope, declared)[0];
      if (hit === undefined) continue;
      if (renames.has(hit)) {
        const target = renames.get(hit)!;
        // Keep the written qualification: the namespace the resolution supplied (itself renamed, if it was).
        const bare = written.replace(/^_root_\./, '');
        const droppedNs = hit.length > bare.length ? hit.slice(0, hit.length - bare.length - 1) : '';
        const ns = renames.get(droppedNs) ?? droppedNs;
        const newWritten = written.startsWith('_root_.')
          ? `_root_.${target}`
          : ns && target.startsWith(`${ns}.`)
            ? target.slice(ns.length + 1)
            : target;
        const end = occ.start + written.length;
        edits.push(replace(occ.start, end, newWritten));
      }
      done = true;
    }
    if (done && !prevIsDot) continue;
    // Dot notation on a value: `h.foo` (h not a declaration) or `(e).foo`; not `.foo` after a space (anonymous constructor).
    const afterValue =
      occ.field === true || (prevIsDot && occ.sig > 1 && file.sig.end[occ.sig - 2] === file.sig.start[occ.sig - 1]);
    if (ends.length > 1 || afterValue) {
      const component = lastComponent(occ.name);
      const to = dotTarget(component);
      if (to !== undefined) edits.push(replace(occ.end - component.length, occ.end, to));
    }
  }
  return { output: applyEdits(text, edits, maxChars), errors, warnings, renamed: renames.size };
}
