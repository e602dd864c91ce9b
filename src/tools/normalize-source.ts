/**
 * The text side of normalize: each normalization is one pass of edits over the output of
 * the previous pass (re-parsed), in a fixed order. Pure; normalize.ts adds Lean's check.
 */
import type { NORMALIZATIONS } from '../contract/tools.ts';
import type { Command } from '../syntax/commands.ts';
import { applyEdits, insert, remove, replace, type TextEdit } from '../syntax/edits.ts';
import { identOccurrences, NameIndex, resolveFirst, resolveName } from '../syntax/names.ts';
import { parseSource, splitName, type SourceFile } from '../syntax/source.ts';
import { pushAll } from '../util/arrays.ts';

export type Normalization = (typeof NORMALIZATIONS)[number];

/** The order passes run in, whatever order the request lists them in. */
const ORDER: Normalization[] = [
  // First: it reads the text as written (no edits of its own), before other passes remove its `open`s and namespaces.
  'expand_scoped_notations',
  'normalize_module_comments',
  'normalize_doc_comments',
  'split_open_in_commands',
  'remove_sections',
  'expand_decl_names',
  // After expand_decl_names, which reads the opens to qualify names.
  'remove_opens',
  'remove_duplicates',
];

export interface NormalizeResult {
  output: string;
  stats: Record<string, number>;
  warnings: string[];
}

/** A whole-line removal: the command plus the rest of its line and its newline when nothing else is on it. */
function removeLines(text: string, c: { start: number; end: number }): TextEdit {
  const lineStart = text.lastIndexOf('\n', c.start - 1) + 1;
  const before = text.slice(lineStart, c.start);
  const nl = text.indexOf('\n', c.end);
  const lineEnd = nl < 0 ? text.length : nl;
  const after = text.slice(c.end, lineEnd);
  if (before.trim() === '' && (after.trim() === '' || after.trim().startsWith('--')))
    return remove(lineStart, nl < 0 ? text.length : nl + 1);
  return remove(c.start, c.end);
}

/**
 * Every declared full name's parents, i.e. the namespaces the file itself creates. Walking
 * each name's prefixes from the longest stops at the first one already known (its parents
 * are known too), so a deep namespace is hashed once, not once per declaration.
 */
function fileNamespaces(file: SourceFile): NameIndex {
  const out = new NameIndex();
  for (const d of file.decls) {
    if (!d.fullName) continue;
    const parts = componentStarts(d.fullName);
    for (let i = parts.length - 1; i >= 1; i--) {
      const p = d.fullName.slice(0, parts[i]! - 1);
      if (out.has(p)) break;
      out.add(p);
    }
  }
  return out;
}

/** Start offset of each component of a dotted name (`«a.b»` parts kept whole). */
function componentStarts(name: string): number[] {
  const starts = [0];
  let inG = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0xab) inG = true;
    else if (c === 0xbb) inG = false;
    else if (c === 46 && !inG) starts.push(i + 1);
  }
  return starts;
}

/** Qualify references (to this file's declarations) resolved via a namespace and/or an open. */
function qualifyReferences(
  file: SourceFile,
  via: ReadonlySet<'namespace' | 'open'>,
  skip: ReadonlySet<number>,
): TextEdit[] {
  const declared = new NameIndex(file.decls.flatMap((d) => (d.fullName ? [d.fullName] : [])));
  const edits: TextEdit[] = [];
  let ci = 0;
  for (const occ of identOccurrences(file.sig)) {
    if (skip.has(occ.start)) continue;
    while (ci + 1 < file.commands.length && file.commands[ci + 1]!.start <= occ.start) ci++;
    const cmd = file.commands[ci];
    if (cmd && (cmd.kind === 'namespace' || cmd.kind === 'section' || cmd.kind === 'end')) continue;
    const scope = file.scopes[ci] ?? { namespace: '', opens: [] };
    const starts = componentStarts(occ.name);
    for (let n = starts.length; n >= 1; n--) {
      // Only a prefix ending in a component some declaration ends in can resolve.
      const end = n < starts.length ? starts[n]! - 1 : occ.name.length;
      if (!declared.hasLast(occ.name.slice(starts[n - 1], end))) continue;
      const written = occ.name.slice(0, end);
      const r = resolveFirst(written, scope, declared);
      if (!r) continue;
      if (r.via !== 'root' && via.has(r.via) && r.full !== written)
        edits.push(replace(occ.start, occ.start + written.length, r.full));
      break;
    }
  }
  return edits;
}

/** `open X` (command or `… in` prefix) inside a namespace may mean `open N.X`: qualify it. Returns the open targets' starts. */
function qualifyOpens(file: SourceFile, edits: TextEdit[]): Set<number> {
  const namespaces = fileNamespaces(file);
  const openTargets = new Set<number>();
  file.commands.forEach((c, i) => {
    const ranges = [
      ...(c.kind === 'open' ? [[c.ownSigStart, c.sigEnd]] : []),
      ...c.prefixes.filter((p) => p.keyword === 'open').map((p) => [p.sigStart, p.sigEnd]),
    ];
    const ns = file.scopes[i]?.namespace ?? '';
    for (const [from, to] of ranges) {
      for (let k = from! + 1; k < to!; k++) {
        if (file.sig.kind[k] !== 'ident') continue;
        openTargets.add(file.sig.start[k]!);
        const full = resolveName(file.sig.text[k]!, { namespace: ns, opens: [] }, namespaces)[0];
        if (full && full !== file.sig.text[k]) edits.push(replace(file.sig.start[k]!, file.sig.end[k]!, full));
      }
    }
  });
  return openTargets;
}

/** The `… in` segments of a prefix chain (`open A in set_option x true in`), as [first, past-`in`) token ranges. */
function inSegments(file: SourceFile, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  let s = from;
  for (let k = from; k < to; k++) {
    if (file.sig.text[k] !== 'in') continue;
    out.push([s, k + 1]);
    s = k + 1;
  }
  return out;
}

/**
 * remove_opens on one command: an `open` command goes whole (with its `open … in` prefixes), each
 * `open … in` segment before another command goes up to the next token. An `open` behind another
 * `… in` (`set_option x true in open A`) is kept with a warning, as AXLE keeps it: without it
 * the `in` would have no command.
 */
function removeOpensOf(file: SourceFile, c: Command, edits: TextEdit[], warnings: string[]): void {
  const segments = inSegments(file, c.sigStart, c.ownSigStart);
  const isOpen = ([k]: [number, number]) => file.sig.text[k] === 'open';
  const kept = () =>
    warnings.push(`remove_opens: the open at line ${file.lines.toLean(c.start).line} follows another \`… in\`; kept`);
  if (c.kind === 'open') {
    if (segments.every(isOpen)) edits.push(removeLines(file.text, c));
    else kept();
    return;
  }
  for (const seg of segments) if (isOpen(seg)) edits.push(remove(file.sig.start[seg[0]]!, file.sig.start[seg[1]]!));
  if (c.kind === 'declaration') return;
  for (let k = c.ownSigStart; k + 1 < c.sigEnd; k++)
    if (file.sig.text[k] === 'in' && file.sig.text[k + 1] === 'open') kept();
}

const passes: Record<
  Normalization,
  (file: SourceFile, all: ReadonlySet<Normalization>, warnings: string[]) => TextEdit[]
> = {
  normalize_module_comments: (file) =>
    file.sig.kind.flatMap((k, i) =>
      k === 'mod-doc' ? [replace(file.sig.start[i]!, file.sig.start[i]! + 3, '/-')] : [],
    ),

  normalize_doc_comments: (file) => {
    const edits: TextEdit[] = [];
    for (let i = 0; i < file.sig.length; i++) {
      if (file.sig.kind[i] !== 'doc-comment') continue;
      // A doc comment before #guard_msgs is its expected output, not documentation.
      if (file.sig.text[i + 1] === '#' && file.sig.text[i + 2] === 'guard_msgs') continue;
      edits.push(replace(file.sig.start[i]!, file.sig.start[i]! + 3, '/-'));
    }
    return edits;
  },

  split_open_in_commands: (file) => {
    const edits: TextEdit[] = [];
    for (const c of file.commands) {
      for (const p of c.prefixes) {
        if (p.keyword !== 'open') continue;
        const inK = p.sigEnd - 1;
        const afterIn = file.text[file.sig.end[inK]!];
        // `open A in` + newline + decl → `open A` + newline + decl.
        edits.push(replace(file.sig.end[inK - 1]!, file.sig.end[inK]!, afterIn === '\n' ? '' : '\n'));
      }
    }
    return edits;
  },

  remove_sections: (file, _all, warnings) => {
    const edits: TextEdit[] = [];
    // Which `end`s close namespaces/sections (removed) and which close `mutual` (kept).
    const stack: ('scope' | 'mutual')[] = [];
    let mutuals = 0; // so `stack.length - mutuals` counts open scopes without a scan
    let noncomputable = false;
    let globalVariables = false;
    const removed = new Set<Command>();
    for (const c of file.commands) {
      const w = (k: number) => file.sig.text[k] ?? '';
      if (c.kind === 'namespace') {
        for (const _ of splitName(w(c.ownSigStart + 1))) stack.push('scope');
        removed.add(c);
      } else if (c.kind === 'section') {
        const k = file.sig.text.indexOf('section', c.ownSigStart);
        const name =
          k + 1 < c.sigEnd && file.sig.kind[k + 1] === 'ident' && !file.sig.firstOnLine[k + 1] ? w(k + 1) : '';
        for (let i = 0; i < Math.max(1, splitName(name).length); i++) stack.push('scope');
        if (c.keyword.includes('noncomputable')) noncomputable = true;
        removed.add(c);
      } else if (c.kind === 'mutual') {
        stack.push('mutual');
        mutuals++;
      } else if (c.kind === 'end') {
        const name =
          c.ownSigStart + 1 < c.sigEnd && file.sig.kind[c.ownSigStart + 1] === 'ident' ? w(c.ownSigStart + 1) : '';
        const n = Math.max(1, splitName(name).length);
        const popped = stack.splice(Math.max(0, stack.length - n), n);
        for (const p of popped) if (p === 'mutual') mutuals--;
        if (!popped.includes('mutual')) removed.add(c);
      } else if (c.kind === 'variable' && stack.length > mutuals) {
        globalVariables = true;
      }
    }
    for (const c of removed) edits.push(removeLines(file.text, c));
    // Declaration names become fully qualified (`_root_.` dropped).
    const nameStarts = new Set<number>();
    for (const d of file.decls) {
      if (!d.nameSpan || !d.fullName) continue;
      const written = file.text.slice(d.nameSpan.start, d.nameSpan.end);
      if (written !== d.fullName) edits.push(replace(d.nameSpan.start, d.nameSpan.end, d.fullName));
      nameStarts.add(d.nameSpan.start);
    }
    const openTargets = qualifyOpens(file, edits);
    // References that relied on the namespace now need the full name.
    pushAll(edits, qualifyReferences(file, new Set(['namespace']), new Set([...nameStarts, ...openTargets])));
    if (noncomputable)
      edits.push(insert(file.header.end, `${file.header.end > 0 ? '\n\n' : ''}noncomputable section\n`));
    if (globalVariables)
      warnings.push(
        'remove_sections: `variable` commands that were inside a section or namespace now apply to the rest of the file',
      );
    (edits as TextEdit[] & { count?: number }).count = removed.size;
    return edits;
  },

  expand_decl_names: (file, all) => {
    const edits: TextEdit[] = [];
    const nameStarts = new Set<number>();
    for (const d of file.decls) {
      if (!d.nameSpan || !d.fullName) continue;
      nameStarts.add(d.nameSpan.start);
      const written = file.text.slice(d.nameSpan.start, d.nameSpan.end);
      // Inside a namespace the full name needs `_root_.` to mean itself.
      const target = d.namespace ? `_root_.${d.fullName}` : d.fullName;
      if (written !== target && !all.has('remove_sections'))
        edits.push(replace(d.nameSpan.start, d.nameSpan.end, target));
    }
    pushAll(edits, qualifyReferences(file, new Set(['open']), nameStarts));
    return edits;
  },

  remove_opens: (file, all, warnings) => {
    const edits: TextEdit[] = [];
    for (const c of file.commands) removeOpensOf(file, c, edits, warnings);
    const missing = (['expand_decl_names', 'expand_scoped_notations'] as const).filter((n) => !all.has(n));
    if (edits.length > 0 && missing.length > 0)
      warnings.push(
        `remove_opens: names and notations that relied on the removed \`open\`s may no longer resolve; combine it with ${missing.join(' and ')}`,
      );
    return edits;
  },

  // AXLE "runs Lean's delaborator with notations disabled" on each use of a scoped notation: only
  // Lean knows which syntax came from one (an imported namespace's notations included), so this
  // service, which does not run that pass, expands none. Where no scoped notation can be in force
  // the pass has nothing to do and its answer is exact: a scoped notation is active only after
  // `open` (a command, an `… in` prefix, a term or tactic `open … in`) or inside `namespace` of its
  // namespace [lean4 src/Lean/Elab/BuiltinCommand.lean `addScope`: `if isNewNamespace then
  // activateScoped newNamespace`; src/Lean/Elab/Open.lean `elabOpenDecl` calls `activateScoped`].
  // Otherwise the text is left as written and the warning names the first such command.
  expand_scoped_notations: (file, _all, warnings) => {
    const k = file.sig.text.findIndex((w) => w === 'open' || w === 'namespace');
    if (k >= 0)
      warnings.push(
        `expand_scoped_notations: not done: \`${file.sig.text[k]}\` on line ${file.sig.line[k]! + 1} can bring scoped ` +
          "notations into force, and only Lean's delaborator expands them (AXLE runs it with notations off), which " +
          'this service does not run; notations are left as written (docs/tools.md)',
      );
    return [];
  },

  remove_duplicates: (file) => {
    const edits: TextEdit[] = [];
    const seen = new Set<string>();
    // Scope path: a duplicate only counts inside the same section/namespace instance.
    const path: number[] = [0];
    let nextScope = 1;
    for (const c of file.commands) {
      if (c.kind === 'namespace' || c.kind === 'section' || c.kind === 'mutual') path.push(nextScope++);
      else if (c.kind === 'end' && path.length > 1) path.pop();
      if (!['open', 'set_option', 'universe', 'declaration', 'attribute'].includes(c.kind)) continue;
      // Each scope instance has its own number, so the innermost one identifies the path (no O(depth) join).
      const key = `${path[path.length - 1]}\u0000${file.text.slice(c.start, c.end).replace(/\s+/g, ' ')}`;
      if (seen.has(key)) edits.push(removeLines(file.text, c));
      else seen.add(key);
    }
    return edits;
  },
};

export function normalizeSource(text: string, wanted: readonly Normalization[]): NormalizeResult {
  const all = new Set(wanted);
  const stats: Record<string, number> = {};
  const warnings: string[] = [];
  let out = text;
  for (const n of ORDER) {
    if (!all.has(n)) continue;
    const file = parseSource(out);
    const edits = passes[n](file, all, warnings);
    const count = (edits as { count?: number }).count ?? edits.length;
    if (count > 0) stats[n] = count;
    out = applyEdits(out, edits);
  }
  // Removed commands leave blank runs behind; the spec allows reprinted blank-line layout.
  if (stats.remove_sections || stats.remove_duplicates || stats.remove_opens) out = out.replace(/\n{3,}/g, '\n\n');
  if (all.has('expand_decl_names')) {
    warnings.push(
      'expand_decl_names qualifies references to declarations of this file; names from imports opened with `open` are left as written',
    );
  }
  return { output: out, stats, warnings };
}
