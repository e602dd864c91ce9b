/**
 * verify_proof: is `content` a valid proof of the sorried `formal_statement`? The rules are the
 * spec's (verify_proof, rules 1–7), each checked by the function named after it below:
 *
 *  1. each declaration of the statement exists in the candidate with the same kind
 *     (`rule1SameDeclarations`, structural) and the same type, and a non-sorried definition
 *     with the same value (`rule1SameTypes`): with `use_def_eq`, Lean must accept the
 *     candidate's constant at the statement's type in the candidate's environment, replayed in
 *     the statement's scope (`defeqCheck`); without it, the `#check` outputs of both must be
 *     equal; values are compared as written, whitespace aside;
 *  2. a def whose statement body is `sorry` has an unchecked body (find-the-answer problems),
 *     and stays opaque in the definitional-equality check (`rule2SorriedDefs`, `defeqCheck`);
 *  3. only standard axioms (asked of Lean with `#print axioms`); each declaration is free of
 *     errors and `sorry` unless `permitted_sorries` names it (`rule3StandardAxioms`);
 *     `unsafe`/`partial` definitions are reported there too;
 *  4. `permitted_sorries` holds theorem names, axiom names, or `*` globs such as
 *     `foo._native.native_decide.*` (`permits`);
 *  5. `open private` is banned (`rule5NoOpenPrivate`);
 *  6. `verify_negation` wraps this check: negation.ts;
 *  7. the check trusts the environment; since the statement's types are re-elaborated in the
 *     candidate's environment, syntax extensions (notation, macro, syntax, elab…) and instances
 *     the statement does not have are refused (`rule7NoNewMeaning`, this project's addition).
 * Message texts follow the spec's error table.
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { LineIndex } from '../syntax/positions.ts';
import type { SourceDecl, SourceFile } from '../syntax/source.ts';
import { inDeclScope, piType, scopeCommands } from '../syntax/statements.ts';
import { elaborateContent, readContent, type Elaborated, type ReadContent } from './elaborate.ts';
import { checkedType, declVerdict, printedCheck, squash } from './decl-verdict.ts';
import { declName, namedDecls } from './selection.ts';
import type { ToolContext, ToolImpl } from './types.ts';
import type { ToolRequest } from '../contract/tools.ts';
import { pushAll } from '../util/arrays.ts';
import { compileNamePatterns, matchesAny } from '../util/glob.ts';

/**
 * The definitional-equality check of rule 1, run in the candidate's environment. The statement's
 * declaration is stated again as an axiom under a fresh name, in the statement's own scope
 * (namespace, opens, universes, section variables; auto-bound implicits on, as in the statement's
 * own elaboration), so its type is exactly the statement's; then the candidate's constant must
 * have that type: `#check (@_root_.name : type_of% @axle_expected_i)` [lean4 v4.28.0:
 * src/Lean/Elab/BuiltinNotation.lean, `elabTypeOf`; a failed ascription is an error]. Defs whose
 * statement body is `sorry` are made irreducible for the check (spec, use_def_eq: a sorried def
 * must not be unfolded), so a candidate cannot change the statement by unfolding its answer.
 */
export function defeqCheck(
  file: SourceFile,
  d: SourceDecl,
  index = 0,
  opaque: readonly string[] = [],
): string | undefined {
  // piType finds the signature's top-level `:` (a signature without a type has nothing to compare).
  if (!d.fullName || piType(file, d) === undefined) return undefined;
  const sig = file.text.slice(d.signatureSpan.start, d.signatureSpan.end).trim();
  const expected = `axle_expected_${index}`;
  return inDeclScope(
    file,
    d,
    [
      'set_option autoImplicit true in',
      'set_option relaxedAutoImplicit true in',
      restated(file, d, expected, sig),
      // `[local irreducible]` on an `abbrev` (reducible) is refused unless allowUnsafeReducibility
      // [lean4 v4.28.0: src/Lean/ReducibilityAttrs.lean, `validate`, case `.local`/`.irreducible`].
      ...(opaque.length
        ? [
            'set_option allowUnsafeReducibility true in',
            `attribute [local irreducible] ${opaque.map((n) => `_root_.${n}`).join(' ')} in`,
          ]
        : []),
      `#check (@_root_.${d.fullName} : type_of% @${expected})`,
    ],
    scopeCommands(file, d),
  );
}

/**
 * The statement's declaration under a fresh name, with the section variables Lean gave the original.
 * An `axiom` keeps only those its type uses (`mkForallFVars vars type (usedOnly := true)` [lean4
 * src/Lean/Elab/Declaration.lean, `elabAxiom`]), but
 *  - a theorem also keeps the instance-implicit ones over included variables (`withHeaderSecVars`
 *    [lean4 v4.28.0: src/Lean/Elab/MutualDef.lean]): it is re-stated as a theorem;
 *  - a def, abbrev or instance keeps those its type *or value* uses (`withUsed`, same file): a
 *    `variable [Monoid M]` that only the value uses is one of its binders. In a scope with section
 *    variables it is re-stated as a `noncomputable def` with its own value (a call of the
 *    declaration itself then names the candidate's, already defined), so its binders are the
 *    original's. A value with termination clauses (not re-stated without its recursion) and an
 *    `opaque` stay axioms, as does every declaration where no `variable` is in force (the same
 *    binders either way).
 * Without this, a candidate identical to the statement failed the check.
 */
function restated(file: SourceFile, d: SourceDecl, expected: string, sig: string): string {
  if (d.kind === 'theorem') return `theorem ${expected} ${sig} := sorry`;
  const value = VALUE_KINDS.has(d.kind) && hasSectionVariables(file, d) ? valueText(file, d) : undefined;
  return value === undefined ? `axiom ${expected} ${sig}` : `noncomputable def ${expected} ${sig} ${value}`;
}

const VALUE_KINDS: ReadonlySet<string> = new Set(['def', 'abbrev', 'instance']);

const hasSectionVariables = (file: SourceFile, d: SourceDecl) =>
  scopeCommands(file, d).some((c) => c.trimStart().startsWith('variable'));

/** The value as written (`:= v`, equations, `where` fields) with its `where` declarations; undefined when it cannot stand alone. */
function valueText(file: SourceFile, d: SourceDecl): string | undefined {
  if (!d.bodySpan || d.trailing.some((c) => c.keyword !== 'where')) return undefined;
  const end = Math.max(d.bodySpan.end, ...d.trailing.map((c) => c.span.end));
  return file.text.slice(d.signatureSpan.end, end).trim();
}

/**
 * How both sides print types for the face-value comparison: the same options on both, whatever
 * each side's mathlib_options and opens (full names, so an `open` cannot change the text).
 */
export { CHECK_PRINTING, printedCheck } from './decl-verdict.ts';

/**
 * Exact names, or globs with `*` (`foo._native.native_decide.*`), compiled once per request: the
 * test for one name is a set lookup plus a linear scan per glob (src/util/glob.ts).
 */
export function permits(patterns: readonly string[] | undefined): (name: string) => boolean {
  const compiled = compileNamePatterns(patterns);
  return (name) => matchesAny(compiled, name);
}

/** The findings so far: tool errors (in the order found) and the declarations that failed. */
interface Findings {
  errors: string[];
  failed: Set<string>;
  fail: (name: string, message: string | undefined) => void;
}

function findings(): Findings {
  const errors: string[] = [];
  const said = new Set<string>();
  const failed = new Set<string>();
  return {
    errors,
    failed,
    fail: (name, message) => {
      failed.add(name);
      if (message && !said.has(message)) {
        said.add(message);
        errors.push(message);
      }
    },
  };
}

/** Rule 2: defs whose statement body is sorry (find-the-answer problems); they stay opaque in the comparison. */
function rule2SorriedDefs(stmt: SourceFile): string[] {
  const isSorry = (d: SourceDecl) =>
    d.bodySpan && /^(by )?sorry$/.test(squash(stmt.text.slice(d.bodySpan.start, d.bodySpan.end)));
  return namedDecls(stmt)
    .filter((d) => d.kind !== 'theorem' && isSorry(d))
    .map((d) => d.fullName!);
}

interface Pair {
  exp: SourceDecl;
  got: SourceDecl;
}

/** A pair's definitional-equality check (rule 1 with `use_def_eq`); its answer is keyed by this object. */
interface DefeqCheck {
  text: string;
}

/** The check for each pair whose statement has a type to compare (`defeqCheck`). */
function defeqChecks(stmt: SourceFile, pairs: readonly Pair[], sorried: readonly string[]): Map<Pair, DefeqCheck> {
  const out = new Map<Pair, DefeqCheck>();
  pairs.forEach((p, i) => {
    const text = defeqCheck(stmt, p.exp, i, sorried);
    if (text !== undefined) out.set(p, { text });
  });
  return out;
}

export const verify_proof: ToolImpl<'verify_proof'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const t0 = performance.now();
    // Each source is parsed once, as Lean gets it: the rules below and the elaboration share the parse.
    const stmtRead = readContent(req.formal_statement, ctx.env, req.ignore_imports);
    const candRead = readContent(req.content, ctx.env, req.ignore_imports);
    const parseMs = performance.now() - t0;
    const stmt = stmtRead.file;
    const cand = candRead.file;
    const found = findings();
    const { errors, failed } = found;
    rule5NoOpenPrivate(cand, found);
    rule7NoNewMeaning(stmt, { file: cand, submitted: req.content }, found);
    const pairs = rule1SameDeclarations(stmt, cand, found);

    // The statement alone, for the expected types as Lean prints them.
    const t1 = performance.now();
    const elabOpts = { ignore_imports: req.ignore_imports, mathlib_options: false };
    const stmtRun = await elaborateContent(req.formal_statement, elabOpts, ctx, {
      read: stmtRead,
      probes: () => pairs.map((p) => ({ key: p, text: printedCheck(p.exp.fullName!) })),
    });
    const formalMs = performance.now() - t1;

    const t2 = performance.now();
    const { candRun, defeq } = await elaborateCandidate(req, ctx, { stmt, candRead }, pairs);
    const candidateMs = performance.now() - t2;
    const t3 = performance.now();
    pushAll(
      errors,
      candRun.toolErrors,
      stmtRun.toolErrors.map((e) => `formal_statement: ${e}`),
    );

    if (!candRun.failure) {
      rule3StandardAxioms(req.permitted_sorries, candRun, found);
      rule1SameTypes({ useDefEq: req.use_def_eq, stmt, cand, pairs, defeq, stmtRun, candRun }, found);
    }
    const lean = toMessageSet(candRun.messages);
    const tool = emptyMessages();
    tool.errors.push(...errors);
    tool.warnings.push(...candRun.toolWarnings);
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
        parse_ms: Math.round(parseMs),
        total_ms: Math.round(performance.now() - t0),
      },
    };
  },
};

/** The candidate, with axiom probes, its own `#check` outputs and (with `use_def_eq`) the definitional-equality checks. */
async function elaborateCandidate(
  req: ToolRequest<'verify_proof'>,
  ctx: ToolContext,
  { stmt, candRead }: { stmt: SourceFile; candRead: ReadContent },
  pairs: readonly Pair[],
): Promise<{ candRun: Elaborated<Pair | DefeqCheck>; defeq: Map<Pair, DefeqCheck> }> {
  const defeq = req.use_def_eq ? defeqChecks(stmt, pairs, rule2SorriedDefs(stmt)) : new Map<Pair, DefeqCheck>();
  const opts = { ignore_imports: req.ignore_imports, mathlib_options: req.mathlib_options };
  const candRun = await elaborateContent<Pair | DefeqCheck>(req.content, opts, ctx, {
    read: candRead,
    axiomsOf: namedDecls,
    probes: () => [
      ...pairs.map((p) => ({ key: p, text: printedCheck(p.got.fullName!) })),
      ...[...defeq.values()].map((c) => ({ key: c, text: c.text })),
    ],
  });
  return { candRun, defeq };
}

/** Rule 5: `open private` (as a command or an `open private … in` prefix) fails every declaration. */
function rule5NoOpenPrivate(cand: SourceFile, found: Findings): void {
  if (
    cand.commands.some((c) => c.kind === 'open' && cand.sig.text[c.ownSigStart + 1] === 'private') ||
    cand.commands.some((c) =>
      c.prefixes.some((p) => p.keyword === 'open' && cand.sig.text[p.sigStart + 1] === 'private'),
    )
  ) {
    found.errors.push("Candidate uses banned 'open private' command");
    for (const d of namedDecls(cand)) found.failed.add(d.fullName!);
  }
}

/**
 * Rule 7 (this project's guard): the statement's types are re-elaborated in the candidate's
 * environment for the defeq check, so syntax the candidate adds (notation, macros, elaborators)
 * could change what they mean: refuse it. The same holds for instances (a new `LE ℕ` instance
 * would change what `≤` means there).
 */
function rule7NoNewMeaning(
  stmt: SourceFile,
  { file: cand, submitted }: { file: SourceFile; submitted: string },
  found: Findings,
): void {
  const instances = new Set([...stmt.decls, ...cand.decls].filter((d) => d.kind === 'instance').map((d) => d.command));
  const meaningful = (f: SourceFile, c: SourceFile['commands'][number]) =>
    c.kind === 'notation' ||
    (c.kind === 'attribute' && /\binstance\b/.test(f.text.slice(c.start, c.end))) ||
    (c.kind === 'declaration' && instances.has(c));
  const lineOf = submittedLines(cand, submitted);
  const stmtSyntax = new Set(
    stmt.commands.filter((c) => meaningful(stmt, c)).map((c) => squash(stmt.text.slice(c.start, c.end))),
  );
  for (const c of cand.commands) {
    if (!meaningful(cand, c) || stmtSyntax.has(squash(cand.text.slice(c.start, c.end)))) continue;
    const what = c.keyword === 'instance' || c.kind === 'attribute' ? 'an instance' : 'syntax';
    found.errors.push(
      `Candidate declares ${what} the statement does not (${c.keyword} at line ${lineOf(c.start)}); ` +
        'it could change the meaning of the statement',
    );
  }
}

/**
 * The line, in the candidate as submitted, of an offset in the content read (the environment's
 * header in place of the candidate's with ignore_imports): the body after the header is the same
 * text, a common suffix of both, so an offset in it moves by the difference of their lengths. The
 * submitted text's line index is made on the first question only (a refusal is rare).
 */
function submittedLines(read: SourceFile, submitted: string): (offset: number) => number {
  if (read.text === submitted) return (offset) => read.lines.lineOf(offset) + 1;
  const shift = submitted.length - read.text.length;
  let lines: LineIndex | undefined;
  return (offset) => (lines ??= new LineIndex(submitted)).lineOf(offset + shift) + 1;
}

/** Rule 1, presence and kind: each named declaration of the statement, paired with the candidate's. */
function rule1SameDeclarations(stmt: SourceFile, cand: SourceFile, found: Findings): Pair[] {
  const byName = new Map(namedDecls(cand).map((d) => [d.fullName!, d]));
  const pairs: Pair[] = [];
  for (const exp of namedDecls(stmt)) {
    const got = byName.get(exp.fullName!);
    if (!got) found.fail(exp.fullName!, `Missing required declaration '${exp.fullName}'`);
    else if (got.kind !== exp.kind)
      found.fail(
        exp.fullName!,
        `Kind mismatch for '${exp.fullName}': candidate has ${got.kind} but expected ${exp.kind}`,
      );
    else pairs.push({ exp, got });
  }
  return pairs;
}

/** Rules 3 and 4: each candidate declaration is complete and uses standard axioms only, unless permitted. */
function rule3StandardAxioms(
  permittedSorries: readonly string[] | undefined,
  candRun: Elaborated,
  found: Findings,
): void {
  const permitted = permits(permittedSorries);
  for (const d of namedDecls(candRun.file)) {
    const name = d.fullName!;
    const allowed = permitted(name);
    if (d.modifiers.words.includes('unsafe') || d.modifiers.words.includes('partial'))
      found.fail(name, `Unsafe function '${name}' detected`);
    if (allowed) continue;
    const v = declVerdict(candRun, d);
    if (v.hasErrors || v.usesSorry)
      found.fail(name, `Declaration '${name}' is incomplete (uses 'sorry' or has errors)`);
    else if (v.axiomsUnanswered)
      found.fail(name, `Declaration '${name}': Lean did not say which axioms it uses (${v.axiomsUnanswered})`);
    for (const a of v.foreignAxioms) {
      if (!permitted(a)) found.fail(name, `In '${name}': axiom '${a}' is not in the allowed set of standard axioms`);
    }
  }
  unnamedIncomplete(candRun, found);
}

/**
 * A declaration without a name (an `example`, an anonymous instance) cannot be asked about by name
 * nor permitted, but Lean still reports its errors and its sorry warning: a candidate holding one is
 * not a complete proof (a statement's `example : P := sorry` is not proved by the same `sorry`).
 */
function unnamedIncomplete(candRun: Elaborated, found: Findings): void {
  for (const d of candRun.file.decls) {
    if (d.fullName) continue;
    const v = declVerdict(candRun, d);
    const name = declName(d, candRun.file);
    if (v.hasErrors || v.usesSorry)
      found.fail(name, `Declaration '${name}' is incomplete (uses 'sorry' or has errors)`);
  }
}

interface TypeEvidence {
  useDefEq: boolean;
  stmt: SourceFile;
  cand: SourceFile;
  pairs: Pair[];
  /** The definitional-equality check planned for a pair, when there is one. */
  defeq: Map<Pair, DefeqCheck>;
  stmtRun: Elaborated<Pair>;
  candRun: Elaborated<Pair | DefeqCheck>;
}

/**
 * Rules 1 and 2, types and values. Each pair's `#check` probe is keyed by the pair in both runs;
 * its defeq check, in the candidate's run, by the check.
 */
function rule1SameTypes(ev: TypeEvidence, found: Findings): void {
  const { stmt, cand, stmtRun, candRun } = ev;
  for (const p of ev.pairs) {
    const name = p.exp.fullName!;
    const expected = checkedType(stmtRun.probes.get(p), name);
    const got = checkedType(candRun.probes.get(p), name);
    let mismatch: boolean;
    if (ev.useDefEq) {
      const check = ev.defeq.get(p);
      const probe = check && candRun.probes.get(check);
      mismatch = probe === undefined ? expected !== got : probe.some((m) => m.severity === 'error');
    } else mismatch = expected !== got;
    const label = p.exp.kind === 'theorem' ? 'Theorem' : 'Definition';
    if (mismatch)
      found.fail(
        name,
        `${label} '${name}' does not match expected signature: expected ${expected ?? '(unknown)'}, got ${got ?? '(unknown)'}`,
      );
    // Rule 2: a def whose statement body is sorry has an unchecked body; otherwise the value must be the same.
    const body = (f: SourceFile, d: SourceDecl) =>
      d.bodySpan ? squash(f.text.slice(d.bodySpan.start, d.bodySpan.end)) : '';
    const expBody = body(stmt, p.exp);
    if (p.exp.kind !== 'theorem' && expBody && !/^(by )?sorry$/.test(expBody) && expBody !== body(cand, p.got)) {
      found.fail(
        name,
        `Definition '${name}' does not match expected signature: expected ${expBody}, got ${body(cand, p.got) || '(no value)'}`,
      );
    }
  }
}
