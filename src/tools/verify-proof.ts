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
 * Message texts follow the spec's error table. `verify_negation` (rule 6) wraps this check: negation.ts.
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
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
export function inDeclScope(file: SourceFile, d: SourceDecl, lines: string[], scope: string[] = []): string {
  const header = file.text.slice(d.headerSpan.start, d.headerSpan.end);
  const universes = /\.\{([^}]*)\}/.exec(header.slice(header.indexOf(d.name ?? '\u0000')))?.[1];
  const opens = [...d.opens, ...d.localOpens];
  const open = d.namespace ? `namespace ${d.namespace}` : 'section';
  const close = d.namespace ? `end ${d.namespace}` : 'end';
  return [open, ...(universes ? [`universe ${universes.replace(/,/g, ' ')}`] : []), ...(opens.length ? [`open ${opens.join(' ')}`] : []), ...scope, ...lines, close].join('\n');
}

/**
 * The `universe` and `variable` commands in effect at a declaration: those of the scopes
 * (sections, namespaces) still open where it stands. A statement's type depends on them
 * (a section variable the statement mentions becomes one of its binders).
 */
export function scopeCommands(file: SourceFile, d: SourceDecl): string[] {
  const stack: string[][] = [[]];
  for (const c of file.commands) {
    if (c.start >= d.command.start) break;
    if (c.kind === 'section' || c.kind === 'namespace') stack.push([]);
    else if (c.kind === 'end') {
      if (stack.length > 1) stack.pop();
    } else if ((c.kind === 'universe' || c.kind === 'variable') && c.prefixes.length === 0 && file.sig.text[c.sigEnd - 1] !== 'in') {
      stack[stack.length - 1]!.push(file.text.slice(c.start, c.end));
    }
  }
  return stack.flat();
}

/**
 * The definitional-equality check of rule 3, run in the candidate's environment. The statement's
 * declaration is stated again as an axiom under a fresh name, in the statement's own scope
 * (namespace, opens, universes, section variables; auto-bound implicits on, as in the statement's
 * own elaboration), so its type is exactly the statement's; then the candidate's constant must
 * have that type: `#check (@_root_.name : type_of% @axle_expected_i)` [lean4:
 * src/Lean/Elab/BuiltinNotation.lean `elabTypeOf`; a failed ascription is an error]. Defs whose
 * statement body is `sorry` are made irreducible for the check (spec, use_def_eq: a sorried def
 * must not be unfolded), so a candidate cannot change the statement by unfolding its answer.
 */
export function defeqCheck(file: SourceFile, d: SourceDecl, index = 0, opaque: readonly string[] = []): string | undefined {
  // piType finds the signature's top-level `:` (a signature without a type has nothing to compare).
  if (!d.fullName || piType(file, d) === undefined) return undefined;
  const sig = file.text.slice(d.signatureSpan.start, d.signatureSpan.end).trim();
  const expected = `axle_expected_${index}`;
  return inDeclScope(file, d, [
    'set_option autoImplicit true in',
    'set_option relaxedAutoImplicit true in',
    `axiom ${expected} ${sig}`,
    // `[local irreducible]` on an `abbrev` (reducible) is refused unless allowUnsafeReducibility
    // [lean4: src/Lean/ReducibilityAttrs.lean, `validate`, case `.local`/`.irreducible`].
    ...(opaque.length ? ['set_option allowUnsafeReducibility true in', `attribute [local irreducible] ${opaque.map((n) => `_root_.${n}`).join(' ')} in`] : []),
    `#check (@_root_.${d.fullName} : type_of% @${expected})`,
  ], scopeCommands(file, d));
}

/**
 * How both sides print types for the face-value comparison: the same options on both, whatever
 * each side's mathlib_options and opens (full names, so an `open` cannot change the text).
 */
export const CHECK_PRINTING = ['set_option pp.fullNames true in', 'set_option pp.unicode.fun true in'];
export const printedCheck = (name: string) => [...CHECK_PRINTING, `#check @${name}`].join('\n');

/** Exact names, or globs with `*`. */
export function permits(patterns: readonly string[] | undefined, name: string): boolean {
  return (patterns ?? []).some((p) => (p.includes('*') ? new RegExp(`^${p.split('*').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name) : p === name));
}


export const verify_proof: ToolImpl<'verify_proof'> = {
  needsLean: () => true,
  async run(req, ctx) {
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
    const stmtRun = await elaborateContent(req.formal_statement, elabOpts, ctx, { probes: () => pairs.map((p) => printedCheck(p.exp.fullName!)) });
    const formalMs = performance.now() - t1;

    // 3. The candidate, with axiom probes, its own #check outputs and the definitional-equality checks.
    const t2 = performance.now();
    // Defs whose statement body is sorry (find-the-answer problems) stay opaque in the comparison.
    const sorried = namedDecls(stmt).filter((d) => d.kind !== 'theorem' && d.bodySpan && /^(by )?sorry$/.test(squash(stmt.text.slice(d.bodySpan.start, d.bodySpan.end)))).map((d) => d.fullName!);
    const defeq = req.use_def_eq ? pairs.map((p, i) => defeqCheck(stmt, p.exp, i, sorried)) : [];
    const candRun = await elaborateContent(req.content, { ...elabOpts, mathlib_options: req.mathlib_options }, ctx, {
      axiomsOf: namedDecls,
      probes: () => [...pairs.map((p) => printedCheck(p.got.fullName!)), ...defeq.flatMap((c) => (c ? [c] : []))],
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
