/**
 * merge: several Lean files into one.
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
 *  5. theorems with equivalent types under different names are merged (rule 5): equivalent means
 *     the same type as Lean prints it up to the names of its outer ∀-binders (type-key.ts); the
 *     merged theorem takes the first name in input order (already unique after step 3, since a
 *     name stating something else was renamed there) and every other name of the group is renamed
 *     to it in its input, references included; step 3's rules then pick one version.
 * Types are compared as Lean prints them (`use_def_eq: false` compares the written signatures).
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { identOccurrences, resolveName } from '../syntax/names.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { checkedType, elaborateContent, isSorryWarning, messagesIn, squash, type Elaborated } from './elaborate.ts';
import { normalizeSource } from './normalize-source.ts';
import { renameInSource } from './rename.ts';
import { namedDecls } from './selection.ts';
import { typeKey } from './type-key.ts';
import { piType } from './verify-proof.ts';
import type { ToolImpl } from './types.ts';

export const SEPARATOR = '-- ' + '-'.repeat(60);

interface Version {
  doc: number;
  decl: SourceDecl;
  file: SourceFile;
  text: string;
  ok: boolean;
}

export const merge: ToolImpl<'merge'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const infos: string[] = [];
    const warnings: string[] = [];
    const errors: string[] = [];
    let parseMs = 0;
    // 1. Normalize and elaborate each input.
    let texts = req.documents.map((d) => normalizeSource(d, ['remove_sections']).output);
    const runs: Elaborated[] = [];
    for (let i = 0; i < texts.length; i++) {
      const r = await elaborateContent(texts[i]!, { ignore_imports: req.ignore_imports }, ctx, {
        axiomsOf: namedDecls,
        probes: (f) => namedDecls(f).map((d) => `#check @${d.fullName}`),
      });
      parseMs += r.parseMs;
      errors.push(...r.toolErrors.map((e) => `document ${i}: ${e}`));
      runs.push(r);
    }
    // Work on the header-substituted texts Lean saw.
    texts = runs.map((r) => r.content);

    // 2. Name conflicts with different statements: rename in the later input (its references follow).
    const typeOf = (i: number, f: SourceFile, d: SourceDecl): string => {
      if (!req.use_def_eq) return squash(f.text.slice(d.signatureSpan.start, d.signatureSpan.end));
      return checkedType(runs[i]!.probes[namedDecls(f).indexOf(d)], d.fullName!) ?? '';
    };
    const files = texts.map((t) => parseSource(t));
    const seen = new Map<string, { type: string; value: string; kind: string }>();
    const renamedIn: Map<string, string>[] = [];
    const taken = new Set(files.flatMap((f) => f.decls.flatMap((d) => (d.fullName ? [d.fullName] : []))));
    for (let i = 0; i < files.length; i++) {
      const mapping: Record<string, string> = {};
      for (const d of files[i]!.decls) {
        if (!d.fullName) continue;
        const v = { type: typeOf(i, files[i]!, d), value: d.kind === 'theorem' ? '' : (d.bodySpan ? squash(texts[i]!.slice(d.bodySpan.start, d.bodySpan.end)) : ''), kind: d.kind };
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
        infos.push(`'${d.fullName}' in document ${i} states something else than the earlier one: renamed to '${fresh}'`);
      }
      if (Object.keys(mapping).length > 0) {
        texts[i] = renameInSource(texts[i]!, mapping).output;
        files[i] = parseSource(texts[i]!);
      }
      renamedIn.push(new Map(Object.entries(mapping)));
    }

    // 2b. Rule 5: theorems with equivalent types under different names become one name.
    const byKey = new Map<string, string[]>();
    files.forEach((f, i) => {
      for (const d of f.decls) {
        if (d.kind !== 'theorem' || !d.fullName) continue;
        // Lean printed the type before step 3's renames in this input: apply them to its identifiers.
        const type = req.use_def_eq ? typeOf(i, f, d) : piType(f, d) ?? '';
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
      infos.push(`theorems ${group.map((n) => `'${n}'`).join(', ')} state the same type: merged as '${group[0]}' (references follow)`);
    }
    if (sameAs.size > 0) {
      for (let i = 0; i < files.length; i++) {
        const mapping = Object.fromEntries([...sameAs].filter(([from]) => files[i]!.decls.some((d) => d.fullName === from)));
        if (Object.keys(mapping).length === 0) continue;
        texts[i] = renameInSource(texts[i]!, mapping).output;
        files[i] = parseSource(texts[i]!);
      }
    }

    // 3. Versions per name, success from the input's elaboration (by position: a rename keeps the layout of lines).
    const versions = new Map<string, Version[]>();
    const anonymous: Version[] = [];
    files.forEach((f, i) => {
      const r = runs[i]!;
      for (const d of f.decls) {
        const from = f.lines.toLean(d.command.start).line;
        const inside = messagesIn({ file: f, messages: r.messages }, d, () => true);
        const original = r.file.decls.find((x) => r.file.lines.toLean(x.command.start).line === from);
        const axioms = original?.fullName ? r.axioms.get(original.fullName) ?? [] : [];
        const ok = !r.failure && !inside.some((m) => m.severity === 'error') && !inside.some(isSorryWarning) && !axioms.includes('sorryAx');
        const v: Version = { doc: i, decl: d, file: f, text: f.text.slice(d.command.start, d.command.end), ok };
        if (d.fullName) versions.set(d.fullName, [...(versions.get(d.fullName) ?? []), v]);
        else anonymous.push(v);
      }
    });
    const chosen: { v: Version; alts: Version[]; failedAll: boolean }[] = [];
    for (const [name, vs] of versions) {
      const winner = vs.find((v) => v.ok) ?? vs[0]!;
      const others = vs.filter((v) => v !== winner && squash(v.text) !== squash(winner.text));
      if (vs.length > 1) infos.push(`'${name}': ${vs.length} versions merged (kept the one from document ${winner.doc}${winner.ok ? '' : ', none compiles cleanly'})`);
      chosen.push({ v: winner, alts: !winner.ok || req.include_alts_as_comments ? others : [], failedAll: !winner.ok });
    }
    for (const v of anonymous) chosen.push({ v, alts: [], failedAll: false });

    // 4. Topological order of dependencies, stable by (input, position).
    chosen.sort((a, b) => a.v.doc - b.v.doc || a.v.decl.command.start - b.v.decl.command.start);
    const names = new Set(chosen.flatMap((c) => (c.v.decl.fullName ? [c.v.decl.fullName] : [])));
    const index = new Map(chosen.map((c, i) => [c.v.decl.fullName ?? `#${i}`, i]));
    const deps = chosen.map((c) => {
      const { file, decl } = c.v;
      const scope = { namespace: '', opens: decl.opens };
      const out = new Set<number>();
      const from = file.sig.start.findIndex((s) => s >= decl.command.start);
      const after = file.sig.start.findIndex((s) => s > decl.command.end);
      for (const o of identOccurrences(file.sig, from, after < 0 ? file.sig.length : after)) {
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
    chosen.forEach((_, i) => visit(i));

    // Output: header, one group of non-declaration commands per input, then the declarations.
    // Imports hoisted and deduplicated (with ignore_imports they are all the environment's header).
    const header = [...new Set(files.flatMap((f) => f.header.imports.map((imp) => squash(f.text.slice(imp.span.start, imp.span.end)))))].join('\n');
    const groups = files.map((f, i) => {
      const cmds = f.commands.filter((c) => c.kind !== 'declaration' && c.kind !== 'import').map((c) => f.text.slice(c.start, c.end));
      return cmds.length ? `${SEPARATOR}\n-- document ${i}\n${cmds.join('\n')}` : '';
    }).filter(Boolean);
    const declTexts = order.map((i) => {
      const c = chosen[i]!;
      const alts = c.alts.map((a) => `-- ${c.failedAll ? 'unsuccessful attempt' : 'alternative'} (document ${a.doc})\n/-\n${a.text}\n-/`);
      return [c.v.text, ...alts].join('\n\n');
    });
    const output = [header, ...groups, ...declTexts].filter((s) => s.length > 0).join('\n\n') + '\n';

    const final = await elaborateContent(output, { ignore_imports: req.ignore_imports }, ctx);
    const tool = emptyMessages();
    tool.errors.push(...errors, ...final.toolErrors);
    tool.warnings.push(...warnings, ...final.toolWarnings);
    tool.infos.push(...infos);
    return {
      content: final.content,
      lean_messages: toMessageSet(final.messages),
      tool_messages: tool,
      timings: { parse_ms: Math.round(parseMs + final.parseMs), total_ms: Math.round(performance.now() - startedAt) },
    };
  },
};
