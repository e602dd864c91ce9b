/**
 * merge: several Lean files into one. The rules below are the functions of this file, in order.
 *  1. each input is normalized first (remove_sections: full names, no scopes), then elaborated
 *     to learn which of its declarations compile without errors and without `sorry`, and how
 *     Lean prints their types (`#check`);
 *  2. non-declaration commands (open, variable, set_option, notation, …) go first, one group
 *     per input under a separator line of dashes (conflicts are not resolved; the later wins);
 *  3. declarations with the same name and the same type are merged into one (non-theorems
 *     must also have the same value as written); successful versions are preferred; with none,
 *     the first is kept and the others follow as comments under `-- unsuccessful attempt`
 *     (all others, with include_alts_as_comments); the same name with a different statement
 *     is renamed `<name>_1`, `_2`, … in its own input (references there follow);
 *  4. declarations are emitted in a topological order of their dependencies (stable by input).
 *  5. theorems with equivalent types under different names are merged: equivalent means
 *     the same type as Lean prints it up to the names of its outer ∀-binders (type-key.ts); the
 *     merged theorem takes the first name in input order (already unique after rule 3, since a
 *     name stating something else was renamed there) and every other name of the group is renamed
 *     to it in its input, references included; rule 3's choice then picks one version.
 * Types are compared as Lean prints them (`use_def_eq: false` compares the written signatures).
 * Run order: 1, 3 (renames), 5, 3 (versions), 4, 2 (output). Tool warnings are the final
 * elaboration's; the rules themselves report in infos.
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { identOccurrences, resolveName } from '../syntax/names.ts';
import { firstTokenFrom } from '../syntax/significant.ts';
import { renameInSource } from '../syntax/renaming.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { piType } from '../syntax/statements.ts';
import { elaborateContent, type Elaborated } from './elaborate.ts';
import { checkedType, declVerdict, printedCheck, squash } from './decl-verdict.ts';
import { reprint } from './layout.ts';
import { normalizeSource } from './normalize-source.ts';
import { namedDecls } from './selection.ts';
import { typeKey } from './type-key.ts';
import type { ToolRequest } from '../contract/tools.ts';
import type { ToolContext, ToolImpl } from './types.ts';

export const SEPARATOR = '-- ' + '-'.repeat(60);

interface Version {
  doc: number;
  decl: SourceDecl;
  file: SourceFile;
  text: string;
  ok: boolean;
}

/** What the rules share: the inputs as they stand (renames rewrite them), their first elaborations, the notes for the answer. */
interface MergeState {
  req: ToolRequest<'merge'>;
  texts: string[];
  files: SourceFile[];
  /** Per input, the first elaboration: its `#check` probes are keyed by that elaboration's declarations. */
  runs: Elaborated<SourceDecl>[];
  /** Per input, a declaration of the current (renamed) text → the one of the first elaboration it comes from. */
  origins: Map<SourceDecl, SourceDecl>[];
  infos: string[];
  errors: string[];
}

export const merge: ToolImpl<'merge'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const { state, parseMs } = await elaborateInputs(req, ctx);
    const renamedIn = renameConflicts(state);
    mergeEquivalentTheorems(state, renamedIn);
    const chosen = chooseVersions(state);
    const order = dependencyOrder(chosen);
    // AXLE's layout (tools/layout.ts): one blank line between commands; a final newline when every input had one.
    const output = reprint(
      assemble(
        state.files,
        chosen,
        order,
        req.documents.every((d) => d.endsWith('\n')),
      ),
    );

    const final = await elaborateContent(output, { ignore_imports: req.ignore_imports }, ctx);
    const tool = emptyMessages();
    tool.errors.push(...state.errors, ...final.toolErrors);
    tool.warnings.push(...final.toolWarnings);
    tool.infos.push(...state.infos);
    return {
      content: final.content,
      lean_messages: toMessageSet(final.messages),
      tool_messages: tool,
      timings: { parse_ms: Math.round(parseMs + final.parseMs), total_ms: Math.round(performance.now() - startedAt) },
    };
  },
};

/** Rule 1: normalize each input, then elaborate it for its declarations' verdicts and `#check` types. */
async function elaborateInputs(
  req: ToolRequest<'merge'>,
  ctx: ToolContext,
): Promise<{ state: MergeState; parseMs: number }> {
  const errors: string[] = [];
  let parseMs = 0;
  const normalized = req.documents.map((d) => normalizeSource(d, ['remove_sections']).output);
  const runs: Elaborated<SourceDecl>[] = [];
  for (let i = 0; i < normalized.length; i++) {
    const r = await elaborateContent(normalized[i]!, { ignore_imports: req.ignore_imports }, ctx, {
      axiomsOf: namedDecls,
      // Full names, as verify_proof asks: the `open`s of different inputs must not print one constant two ways.
      probes: (f) => namedDecls(f).map((d) => ({ key: d, text: printedCheck(d.fullName!) })),
    });
    parseMs += r.parseMs;
    errors.push(...r.toolErrors.map((e) => `document ${i}: ${e}`));
    runs.push(r);
  }
  // Work on the header-substituted texts Lean saw, starting from the very declarations it was asked about.
  const texts = runs.map((r) => r.content);
  const files = runs.map((r) => r.file);
  return { state: { req, texts, files, runs, origins: runs.map(() => new Map()), infos: [], errors }, parseMs };
}

/** The declaration of input `i`'s first elaboration that `d` (of its current text) comes from. */
function originOf(state: MergeState, i: number, d: SourceDecl): SourceDecl {
  return state.origins[i]!.get(d) ?? d;
}

/**
 * A declaration's type for comparisons: as Lean printed it in its input's elaboration (its own
 * `#check` probe, the one planned for this declaration), or as written with `use_def_eq: false`.
 */
function typeOf(state: MergeState, i: number, f: SourceFile, d: SourceDecl): string {
  if (!state.req.use_def_eq) return squash(f.text.slice(d.signatureSpan.start, d.signatureSpan.end));
  // Lean printed it under the name it had then (`name : type`), before any rename.
  const origin = originOf(state, i, d);
  return checkedType(state.runs[i]!.probes.get(origin), origin.fullName!) ?? '';
}

/** Rule 3, its renaming half: the same name stating something else is renamed `<name>_n` in its input (references follow). */
function renameConflicts(state: MergeState): Map<string, string>[] {
  const { files, texts } = state;
  const seen = new Map<string, { type: string; value: string; kind: string }>();
  const renamedIn: Map<string, string>[] = [];
  const taken = new Set(files.flatMap((f) => f.decls.flatMap((d) => (d.fullName ? [d.fullName] : []))));
  for (let i = 0; i < files.length; i++) {
    const mapping: Record<string, string> = {};
    for (const d of files[i]!.decls) {
      if (!d.fullName) continue;
      const v = {
        type: typeOf(state, i, files[i]!, d),
        value: d.kind === 'theorem' ? '' : d.bodySpan ? squash(texts[i]!.slice(d.bodySpan.start, d.bodySpan.end)) : '',
        kind: d.kind,
      };
      const prev = seen.get(d.fullName);
      if (!prev) {
        seen.set(d.fullName, v);
        continue;
      }
      if (prev.type === v.type && prev.kind === v.kind && (v.kind === 'theorem' || prev.value === v.value)) continue;
      let n = 1;
      while (taken.has(`${d.fullName}_${n}`)) n++;
      const fresh = `${d.fullName}_${n}`;
      taken.add(fresh);
      mapping[d.fullName] = fresh;
      seen.set(fresh, v);
      state.infos.push(
        `'${d.fullName}' in document ${i} states something else than the earlier one: renamed to '${fresh}'`,
      );
    }
    if (Object.keys(mapping).length > 0) renameIn(state, i, mapping);
    renamedIn.push(new Map(Object.entries(mapping)));
  }
  return renamedIn;
}

function renameIn(state: MergeState, i: number, mapping: Record<string, string>): void {
  const before = state.files[i]!.decls.map((d) => originOf(state, i, d));
  state.texts[i] = renameInSource(state.texts[i]!, mapping).output;
  state.files[i] = parseSource(state.texts[i]!);
  // A rename rewrites names, never adds or removes a declaration: each keeps its place in the list.
  const origins = new Map<SourceDecl, SourceDecl>();
  state.files[i]!.decls.forEach((d, k) => {
    if (before[k]) origins.set(d, before[k]);
  });
  state.origins[i] = origins;
}

/** Rule 5: theorems with equivalent types under different names take the first name (references follow). */
function mergeEquivalentTheorems(state: MergeState, renamedIn: Map<string, string>[]): void {
  const { files } = state;
  const byKey = new Map<string, string[]>();
  files.forEach((f, i) => {
    for (const d of f.decls) {
      if (d.kind !== 'theorem' || !d.fullName) continue;
      // Lean printed the type before rule 3's renames in this input: apply them to its identifiers.
      const type = state.req.use_def_eq ? typeOf(state, i, f, d) : (piType(f, d) ?? '');
      if (!type) continue;
      const key = typeKey(type, renamedIn[i]);
      const group = byKey.get(key) ?? [];
      if (!group.includes(d.fullName)) group.push(d.fullName);
      byKey.set(key, group);
    }
  });
  const sameAs = new Map<string, string>();
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    for (const other of group.slice(1)) if (!sameAs.has(other)) sameAs.set(other, group[0]!);
    state.infos.push(
      `theorems ${group.map((n) => `'${n}'`).join(', ')} state the same type: merged as '${group[0]}' (references follow)`,
    );
  }
  if (sameAs.size === 0) return;
  for (let i = 0; i < files.length; i++) {
    const mapping = Object.fromEntries(
      [...sameAs].filter(([from]) => files[i]!.decls.some((d) => d.fullName === from)),
    );
    if (Object.keys(mapping).length > 0) renameIn(state, i, mapping);
  }
}

interface Chosen {
  v: Version;
  alts: Version[];
  failedAll: boolean;
}

/**
 * Rule 3, its merging half: the versions of each name, one kept (a successful one first). Success
 * is the shared declaration verdict of the input's elaboration: its messages found by the
 * declaration's lines (a rename keeps the layout of lines), its axioms under the name it had there
 * (`originOf`).
 */
function chooseVersions(state: MergeState): Chosen[] {
  const versions = new Map<string, Version[]>();
  const anonymous: Version[] = [];
  state.files.forEach((f, i) => {
    const r = state.runs[i]!;
    for (const d of f.decls) {
      const verdict = declVerdict(
        { file: f, messages: r.messages, axioms: r.axioms, axiomsUnanswered: r.axiomsUnanswered },
        { ...d, fullName: originOf(state, i, d).fullName },
      );
      // Without an axioms answer nothing says the version is free of sorry: not a good version.
      const ok = !r.failure && !verdict.hasErrors && !verdict.usesSorry && !verdict.axiomsUnanswered;
      const v: Version = { doc: i, decl: d, file: f, text: f.text.slice(d.command.start, d.command.end), ok };
      if (d.fullName) versions.set(d.fullName, [...(versions.get(d.fullName) ?? []), v]);
      else anonymous.push(v);
    }
  });
  const chosen: Chosen[] = [];
  for (const [name, vs] of versions) {
    const winner = vs.find((v) => v.ok) ?? vs[0]!;
    const others = vs.filter((v) => v !== winner && squash(v.text) !== squash(winner.text));
    if (vs.length > 1)
      state.infos.push(
        `'${name}': ${vs.length} versions merged (kept the one from document ${winner.doc}${winner.ok ? '' : ', none compiles cleanly'})`,
      );
    chosen.push({
      v: winner,
      alts: !winner.ok || state.req.include_alts_as_comments ? others : [],
      failedAll: !winner.ok,
    });
  }
  for (const v of anonymous) chosen.push({ v, alts: [], failedAll: false });
  // Stable by (input, position), the order rule 4 keeps among independent declarations.
  chosen.sort((a, b) => a.v.doc - b.v.doc || a.v.decl.command.start - b.v.decl.command.start);
  return chosen;
}

/** Rule 4: a topological order of the kept declarations' dependencies, stable by (input, position). */
function dependencyOrder(chosen: Chosen[]): number[] {
  const names = new Set(chosen.flatMap((c) => (c.v.decl.fullName ? [c.v.decl.fullName] : [])));
  const index = new Map(chosen.map((c, i) => [c.v.decl.fullName ?? `#${i}`, i]));
  const deps = chosen.map((c) => {
    const { file, decl } = c.v;
    const scope = { namespace: '', opens: decl.opens };
    const out = new Set<number>();
    const from = firstTokenFrom(file.sig, decl.command.start);
    const after = firstTokenFrom(file.sig, decl.command.end + 1);
    for (const o of identOccurrences(file.sig, from, after)) {
      const hit = resolveName(o.name, scope, names)[0];
      const j = hit === undefined ? undefined : index.get(hit);
      if (j !== undefined && hit !== decl.fullName) out.add(j);
    }
    return out;
  });
  const order: number[] = [];
  const state = new Array<number>(chosen.length).fill(0);
  const visit = (i: number) => {
    if (state[i] !== 0) return; // visiting (a cycle across inputs) or done
    state[i] = 1;
    for (const j of [...deps[i]!].sort((a, b) => a - b)) visit(j);
    state[i] = 2;
    order.push(i);
  };
  for (let i = 0; i < chosen.length; i++) visit(i);
  return order;
}

/**
 * Rule 2 and the output: the header (imports hoisted and deduplicated; with ignore_imports they are
 * all the environment's header), one group of non-declaration commands per input, then the declarations.
 */
function assemble(files: SourceFile[], chosen: Chosen[], order: number[], finalNewline: boolean): string {
  const header = [
    ...new Set(files.flatMap((f) => f.header.imports.map((imp) => squash(f.text.slice(imp.span.start, imp.span.end))))),
  ].join('\n');
  const groups = files
    .map((f, i) => {
      const cmds = f.commands
        .filter((c) => c.kind !== 'declaration' && c.kind !== 'import')
        .map((c) => f.text.slice(c.start, c.end));
      return cmds.length ? `${SEPARATOR}\n-- document ${i}\n${cmds.join('\n')}` : '';
    })
    .filter(Boolean);
  const declTexts = order.map((i) => {
    const c = chosen[i]!;
    const alts = c.alts.map(
      (a) => `-- ${c.failedAll ? 'unsuccessful attempt' : 'alternative'} (document ${a.doc})\n/-\n${a.text}\n-/`,
    );
    return [c.v.text, ...alts].join('\n\n');
  });
  return [header, ...groups, ...declTexts].filter((s) => s.length > 0).join('\n\n') + (finalNewline ? '\n' : '');
}
