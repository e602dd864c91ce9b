/**
 * verify_proof: is `content` a valid proof of the sorried `formal_statement`?
 *
 *  1. every named declaration of the statement exists in the candidate with the same kind
 *     (structural, from the source model);
 *  2. the candidate elaborates; each declaration is free of errors, of `sorry` and of
 *     non-standard axioms (asked of Lean with `#print axioms`), unless `permitted_sorries`
 *     names it (theorem names, axiom names, or `*` globs such as
 *     `foo._native.native_decide.*`);
 *  3. types match: with `use_def_eq`, Lean must accept `example : <statement type> := @decl`
 *     in the candidate's environment, replayed in the statement's namespace and `open`s;
 *     without it, the `#check` outputs of both must be equal. A def with a value in the
 *     statement must have the same value (compared as written, whitespace aside); a def
 *     whose statement body is `sorry` is unchecked (find-the-answer problems);
 *  4. `open private` is banned; `unsafe`/`partial` definitions are reported; syntax extensions
 *     (notation, macro, syntax, elab…) and instances the statement does not have are refused,
 *     since the statement's types are re-elaborated in the candidate's environment.
 * Message texts follow the spec's error table. `verify_negation` is not implemented yet.
 */
import { toMessageSet } from '../backend/index.ts';
import { emptyMessages } from '../contract/common.ts';
import { ServiceError } from '../errors.ts';
import { isCloser, isOpener } from '../syntax/significant.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { checkedType, declVerdict, elaborateContent, squash } from './elaborate.ts';
import { namedDecls } from './selection.ts';
import type { ToolImpl } from './types.ts';

/** A declaration's type as a Pi type: `(x : A) {y : B} : C` → `∀ (x : A) {y : B}, C`. */
export function piType(file: SourceFile, d: SourceDecl): string | undefined {
  const { sig } = file;
  const start = sig.start.findIndex((s) => s >= d.signatureSpan.start);
  if (start < 0 || d.signatureSpan.start === d.signatureSpan.end) return undefined;
  let k = start;
  const binders: string[] = [];
  while (k < sig.length && sig.start[k]! < d.signatureSpan.end) {
    const t = sig.text[k]!;
    if (isOpener(sig, k) && t !== '⟨') {
      const from = k;
      let depth = 0;
      for (; k < sig.length; k++) {
        if (isOpener(sig, k)) depth++;
        else if (isCloser(sig, k) && --depth === 0) break;
      }
      binders.push(file.text.slice(sig.start[from]!, sig.end[k]!));
      k++;
    } else if (t === ':') {
      const type = file.text.slice(sig.end[k]!, d.signatureSpan.end).trim();
      return binders.length ? `∀ ${binders.join(' ')}, ${type}` : type;
    } else if (sig.kind[k] === 'ident') {
      binders.push(t);
      k++;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** `lines` in the declaration's namespace, `open`s and universes, in a section of their own. */
export function inDeclScope(file: SourceFile, d: SourceDecl, lines: string[]): string {
  const header = file.text.slice(d.headerSpan.start, d.headerSpan.end);
  const universes = /\.\{([^}]*)\}/.exec(header.slice(header.indexOf(d.name ?? '\u0000')))?.[1];
  const opens = [...d.opens, ...d.localOpens];
  const open = d.namespace ? `namespace ${d.namespace}` : 'section';
  const close = d.namespace ? `end ${d.namespace}` : 'end';
  return [open, ...(universes ? [`universe ${universes.replace(/,/g, ' ')}`] : []), ...(opens.length ? [`open ${opens.join(' ')}`] : []), ...lines, close].join('\n');
}

/** `example : <type> := @_root_.<name>`, in the statement's namespace and opens (a section of its own). */
export function defeqCheck(file: SourceFile, d: SourceDecl): string | undefined {
  const type = piType(file, d);
  if (!type || !d.fullName) return undefined;
  return inDeclScope(file, d, [`example : ${type} := @_root_.${d.fullName}`]);
}

/** Exact names, or globs with `*`. */
export function permits(patterns: readonly string[] | undefined, name: string): boolean {
  return (patterns ?? []).some((p) => (p.includes('*') ? new RegExp(`^${p.split('*').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name) : p === name));
}


export const verify_proof: ToolImpl<'verify_proof'> = {
  needsLean: () => true,
  unsupported: (req) => (req.verify_negation ? 'verify_negation is not implemented yet (verify_proof without it is)' : undefined),
  async run(req, ctx) {
    if (req.verify_negation) throw new ServiceError('not_implemented', 'verify_negation is not implemented yet (verify_proof without it is)');
    const t0 = performance.now();
    const stmt = parseSource(req.formal_statement);
    const cand = parseSource(req.content);
    const errors: string[] = [];
    const warnings: string[] = [];
    const failed = new Set<string>();
    const fail = (name: string, message: string | undefined) => {
      failed.add(name);
      if (message && !errors.includes(message)) errors.push(message);
    };

    if (cand.commands.some((c) => c.kind === 'open' && cand.sig.text[c.ownSigStart + 1] === 'private') ||
        cand.commands.some((c) => c.prefixes.some((p) => p.keyword === 'open' && cand.sig.text[p.sigStart + 1] === 'private'))) {
      errors.push("Candidate uses banned 'open private' command");
      for (const d of namedDecls(cand)) failed.add(d.fullName!);
    }

    // The statement's types are re-elaborated in the candidate's environment for the defeq check, so
    // syntax the candidate adds (notation, macros, elaborators) could change what they mean: refuse it.
    // The same holds for instances (a new `LE ℕ` instance would change what `≤` means there).
    const meaningful = (f: SourceFile, c: SourceFile['commands'][number]) =>
      c.kind === 'notation' || (c.kind === 'attribute' && /\binstance\b/.test(f.text.slice(c.start, c.end))) ||
      (c.kind === 'declaration' && f.decls.some((d) => d.command === c && d.kind === 'instance'));
    const stmtSyntax = new Set(stmt.commands.filter((c) => meaningful(stmt, c)).map((c) => squash(stmt.text.slice(c.start, c.end))));
    for (const c of cand.commands) {
      if (!meaningful(cand, c) || stmtSyntax.has(squash(cand.text.slice(c.start, c.end)))) continue;
      errors.push(`Candidate declares ${c.keyword === 'instance' || c.kind === 'attribute' ? 'an instance' : 'syntax'} the statement does not (${c.keyword} at line ${cand.lines.toLean(c.start).line}); it could change the meaning of the statement`);
    }

    // 1. Presence and kind.
    const byName = new Map(namedDecls(cand).map((d) => [d.fullName!, d]));
    const pairs: { exp: SourceDecl; got: SourceDecl }[] = [];
    for (const exp of namedDecls(stmt)) {
      const got = byName.get(exp.fullName!);
      if (!got) fail(exp.fullName!, `Missing required declaration '${exp.fullName}'`);
      else if (got.kind !== exp.kind) fail(exp.fullName!, `Kind mismatch for '${exp.fullName}': candidate has ${got.kind} but expected ${exp.kind}`);
      else pairs.push({ exp, got });
    }

    // 2. The statement alone, for the expected types as Lean prints them.
    const t1 = performance.now();
    const elabOpts = { ignore_imports: req.ignore_imports, mathlib_options: false };
    const stmtRun = await elaborateContent(req.formal_statement, elabOpts, ctx, { probes: () => pairs.map((p) => `#check @${p.exp.fullName}`) });
    const formalMs = performance.now() - t1;

    // 3. The candidate, with axiom probes, its own #check outputs and the definitional-equality checks.
    const t2 = performance.now();
    const defeq = req.use_def_eq ? pairs.map((p) => defeqCheck(stmt, p.exp)) : [];
    const candRun = await elaborateContent(req.content, { ...elabOpts, mathlib_options: req.mathlib_options }, ctx, {
      axiomsOf: namedDecls,
      probes: () => [...pairs.map((p) => `#check @${p.got.fullName}`), ...defeq.flatMap((c) => (c ? [c] : []))],
    });
    const candidateMs = performance.now() - t2;
    const t3 = performance.now();
    errors.push(...candRun.toolErrors, ...stmtRun.toolErrors.map((e) => `formal_statement: ${e}`));
    warnings.push(...candRun.toolWarnings);

    if (!candRun.failure) {
      for (const d of namedDecls(candRun.file)) {
        const name = d.fullName!;
        const allowed = permits(req.permitted_sorries, name);
        if (d.modifiers.words.includes('unsafe') || d.modifiers.words.includes('partial')) fail(name, `Unsafe function '${name}' detected`);
        if (allowed) continue;
        const v = declVerdict(candRun, d);
        if (v.hasErrors || v.usesSorry) fail(name, `Declaration '${name}' is incomplete (uses 'sorry' or has errors)`);
        for (const a of v.foreignAxioms) {
          if (!permits(req.permitted_sorries, a)) fail(name, `In '${name}': axiom '${a}' is not in the allowed set of standard axioms`);
        }
      }
      // Types (and values of non-sorried definitions).
      let next = pairs.length;
      pairs.forEach((p, i) => {
        const name = p.exp.fullName!;
        const expected = checkedType(stmtRun.probes[i], name);
        const got = checkedType(candRun.probes[i], name);
        let mismatch: boolean;
        if (req.use_def_eq) {
          const probe = defeq[i] ? candRun.probes[next++] : undefined;
          mismatch = probe === undefined ? expected !== got : probe.some((m) => m.severity === 'error');
        } else mismatch = expected !== got;
        const label = p.exp.kind === 'theorem' ? 'Theorem' : 'Definition';
        if (mismatch) fail(name, `${label} '${name}' does not match expected signature: expected ${expected ?? '(unknown)'}, got ${got ?? '(unknown)'}`);
        // Rule 2: a def whose statement body is sorry has an unchecked body; otherwise the value must be the same.
        const body = (f: SourceFile, d: SourceDecl) => (d.bodySpan ? squash(f.text.slice(d.bodySpan.start, d.bodySpan.end)) : '');
        const expBody = body(stmt, p.exp);
        if (p.exp.kind !== 'theorem' && expBody && !/^(by )?sorry$/.test(expBody) && expBody !== body(cand, p.got)) {
          fail(name, `Definition '${name}' does not match expected signature: expected ${expBody}, got ${body(cand, p.got) || '(no value)'}`);
        }
      });
    }
    const lean = toMessageSet(candRun.messages);
    const tool = emptyMessages();
    tool.errors.push(...errors);
    tool.warnings.push(...warnings);
    return {
      okay: tool.errors.length === 0 && lean.errors.length === 0 && !candRun.failure,
      content: candRun.content,
      lean_messages: lean,
      tool_messages: tool,
      failed_declarations: [...failed],
      timings: {
        formal_statement_ms: Math.round(formalMs),
        candidate_ms: Math.round(candidateMs),
        declarations_ms: Math.round(performance.now() - t3),
        parse_ms: Math.round(stmtRun.parseMs + candRun.parseMs),
        total_ms: Math.round(performance.now() - t0),
      },
    };
  },
};
