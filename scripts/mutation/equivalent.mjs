// Surviving mutants argued equivalent (no test can tell them from the original), each with its
// argument. Keyed `file|mutator|original line (trimmed)|replacement`, as the report lists them, so
// a change to the line makes the argument lapse and the mutant show again.
export const EQUIVALENT = {
  'src/syntax/comment-free.ts|EqualityOperator|if (a < s) continue;|a <= s':
    "a span starts at a token's end (or at −1): no token but blank space ends in a line break, so no span starts where a line does",
  'src/syntax/comment-free.ts|EqualityOperator|for (let i = 0; i < kinds.length;) {|i <= kinds.length':
    'one more turn reads kinds[length], undefined: not trivia, so it sets prevEnd to undefined and ends the loop with no span pushed',
  'src/syntax/comment-free.ts|ConditionalExpression|while (i < kinds.length && isTrivia(kinds[i]!)) i++;|true':
    'past the last token kinds[i] is undefined, which isTrivia rejects: the loop stops at the same index',
  'src/syntax/comment-free.ts|EqualityOperator|while (i < kinds.length && isTrivia(kinds[i]!)) i++;|i <= kinds.length':
    'past the last token kinds[i] is undefined, which isTrivia rejects: the loop stops at the same index',
  "src/tools/lean-texts.ts|Regex|const m = /^v(\\d+)\\.(\\d+)\\.(\\d+)(?:-rc(\\d+))?$/.exec(toolchainTag(toolchain) ?? '');|/v(\\d+)\\.(\\d+)\\.(\\d+)(?:-rc(\\d+))?$/":
    "toolchainTag returns `v` plus its own anchored match or undefined (then ''), so the text always starts with `v`",
  "src/tools/lean-texts.ts|Regex|const m = /^v(\\d+)\\.(\\d+)\\.(\\d+)(?:-rc(\\d+))?$/.exec(toolchainTag(toolchain) ?? '');|/^v(\\d+)\\.(\\d+)\\.(\\d+)(?:-rc(\\d+))?/":
    "toolchainTag's own match is anchored at the end (`…(?:-rc\\d+)?$`), so nothing follows the version",
  'src/tools/lean-texts.ts|StringLiteral|const m = /^v(\\d+)\\.(\\d+)\\.(\\d+)(?:-rc(\\d+))?$/.exec(toolchainTag(toolchain) ?? \'\');|"Stryker was here!"':
    "the fallback for an unreadable toolchain matches neither '' nor 'Stryker was here!': both give undefined",
  'src/tools/lean-texts.ts|EqualityOperator|for (let i = 0; i < 4; i++) if (v[i] !== want[i]) return v[i]! > want[i]!;|i <= 4':
    'both arrays have 4 elements: at i = 4 both read undefined, which are equal, so the loop ends as before',
  'src/tools/lean-texts.ts|EqualityOperator|for (let i = 0; i < 4; i++) if (v[i] !== want[i]) return v[i]! > want[i]!;|v[i]! >= want[i]!':
    'the comparison runs only when v[i] !== want[i], where >= and > agree',
  "src/tools/lean-texts.ts|MethodExpression|? m[2]|m[2].split(',').map(a => a.trim())":
    "Lean prints a non-empty `List Name` as `[a, b]` (lean4 src/Lean/Elab/Print.lean, printAxiomsOf; an empty list is the 'does not depend' text): no empty item to filter",
  "src/tools/decl-verdict.ts|Regex|return squash(bare).replace(/^:\\s*/, '');|/^:\\s/":
    'squash collapses whitespace to one space and Lean prints `#check` as `name : type` (a space after the colon), so `:\\s` and `:\\s*` remove the same text',
  'src/tools/verify-proof.ts|MethodExpression|const sig = file.text.slice(d.signatureSpan.start, d.signatureSpan.end).trim();|file.text.slice(d.signatureSpan.start, d.signatureSpan.end)':
    'signatureSpan runs from the start of its first token to the end of its last (syntax/declarations.ts, assemble): nothing to trim',
  "src/tools/verify-proof.ts|MethodExpression|scopeCommands(file, d).some((c) => c.trimStart().startsWith('variable'));|c.trimEnd()":
    'a scope command is its text from its first token (syntax/source.ts, variable): no leading whitespace to trim',
  'src/tools/verify-proof.ts|ObjectLiteral|const elabOpts = { ignore_imports: req.ignore_imports, mathlib_options: false };|{}':
    'the statement is passed already read (extras.read), so ignore_imports is not consulted, and an absent mathlib_options is false',
  "src/tools/verify-proof.ts|ConditionalExpression|c.prefixes.some((p) => p.keyword === 'open' && cand.sig.text[p.sigStart + 1] === 'private'),|true":
    "(the `p.keyword === 'open'` operand; the other two are killed) only `open` takes `private` as its first argument among `… in` prefixes",
  "src/tools/verify-proof.ts|ConditionalExpression|(c.kind === 'declaration' && instances.has(c));|true":
    "(the `c.kind === 'declaration'` operand; the whole is killed) `instances` holds declaration commands only",
  'src/tools/verify-proof.ts|MethodExpression|stmt.commands.filter((c) => meaningful(stmt, c)).map((c) => squash(stmt.text.slice(c.start, c.end))),|stmt.commands':
    "meaningfulness follows from a command's text (kind, keyword; an instance declaration of either file is in `instances`), so a statement command with the same text as a meaningful candidate command is meaningful too",
  'src/tools/verify-proof.ts|ConditionalExpression|if (ev.useDefEq) {|true':
    'without use_def_eq no defeq check is planned (an empty map), so the probe is undefined and the face-value comparison runs as in the else branch',
  // negation.ts, disprove.ts, comparator.ts (the survivors' tests: test/tools/{negation,disprove,comparator}-mutants.test.ts).
  "src/tools/disprove.ts|ConditionalExpression|if (probe !== undefined && errs.length === 0 && axioms !== undefined && !axioms.includes('sorryAx'))|true":
    '`probe !== undefined` -> true: an undefined probe has no messages, so `axioms` is undefined and the test fails anyway (the key is shared by the `errs.length === 0` and `axioms !== undefined` -> true mutants, which test/tools/disprove-mutants.test.ts kills)',
  'src/tools/disprove.ts|ArrayDeclaration|let planned: Probe<Attempt>[] = [];|["Stryker was here"]':
    'the initial value is never read: elaborateContent calls planCommands, hence the probes callback that assigns `planned`, before it can return (src/tools/elaborate.ts)',
  'src/tools/negation.ts|StringLiteral|const shifted = parseSource(`theorem ${d.name ?? \'x\'}${local} := sorry`);|""':
    "the `'x'` fallback is unreachable: theorems come from namedDecls (a fullName, hence a name)",
  "src/tools/negation.ts|LogicalOperator|const shifted = parseSource(`theorem ${d.name ?? 'x'}${local} := sorry`);|d.name && 'x'":
    "the throwaway theorem's name is not read: piType returns the signature's Pi type, the same under any name",
  "src/tools/negation.ts|Regex|return /\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][\\w'.]*|\\()/.test(sig.replace(/\\b(?:Sort|Type)\\s+\\d+\\b/g, ''));|/\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][^\\w'.]*|\\()/":
    '`.test` only: the starred class after `[A-Za-z_]` may match nothing, so both regexes match exactly where `[A-Za-z_]` does',
  "src/tools/negation.ts|Regex|return /\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][\\w'.]*|\\()/.test(sig.replace(/\\b(?:Sort|Type)\\s+\\d+\\b/g, ''));|/\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][\\W'.]*|\\()/":
    '`.test` only: the starred class after `[A-Za-z_]` may match nothing, so both regexes match exactly where `[A-Za-z_]` does',
  "src/tools/negation.ts|EqualityOperator|if (o.sig > 0 && f.sig.text[o.sig - 1] === '.' && f.sig.end[o.sig - 1] === o.start) continue;|o.sig >= 0":
    "at o.sig 0 the next test reads f.sig.text[-1], undefined, never '.': the same outcome as `o.sig > 0` false",
  'src/tools/negation.ts|ArrayDeclaration|let group: string[] | undefined = [];|["Stryker was here"]':
    'never read: group is read only at depth 1, and depth reaches 1 only through an opener, which resets group',
  'src/tools/negation.ts|ArrayDeclaration|if (depth++ === 0) group = [];|["Stryker was here"]':
    'adds the local "Stryker was here", which contains spaces and so never equals the first component of a written name it is compared with',
  'src/tools/negation.ts|Regex|const [lead, trail] = [/^\\s*/.exec(sigText)![0], sigText.slice(sigText.trimEnd().length)];|/\\s*/':
    'exec of `\\s*` matches at index 0 anyway (possibly empty): the same leading whitespace as `^\\s*`',
  'src/tools/negation.ts|MethodExpression|const [lead, trail] = [/^\\s*/.exec(sigText)![0], sigText.slice(sigText.trimEnd().length)];|sigText.trimStart()':
    'signatureSpan starts and ends at a token (src/syntax/declarations.ts, assemble), so sigText has no outer whitespace: both slices are empty',
  'src/tools/negation.ts|BooleanLiteral|const main = await base.run({ ...req, verify_negation: false }, ctx);|true':
    'base is verify_proof (src/tools/index.ts), which never reads verify_negation (only negation.ts does)',
  'src/tools/negation.ts|BooleanLiteral|{ ...req, formal_statement: negated.text, verify_negation: false },|true':
    'base is verify_proof (src/tools/index.ts), which never reads verify_negation (only negation.ts does)',
  'src/tools/disprove.ts|ArrayDeclaration|const errs = (probe ?? []).filter((m) => m.severity === \'error\');|["Stryker was here"]':
    'a string in place of the empty list has no `severity`, so it is filtered out: the same empty result (and the branch runs only for an undefined probe)',
  'src/tools/disprove.ts|ArrayDeclaration|const axioms = (probe ?? [])|["Stryker was here"]':
    'a string in place of the empty list has no `severity`, so it is filtered out: the same empty result (and the branch runs only for an undefined probe)',
  // Plausible's reader, disprove, negation, verify_proof (the survivors' tests: test/tools/{plausible,disprove-mutants,negation-mutants,verify-proof-mutants}.test.ts).
  "src/tools/plausible.ts|MethodExpression|const lines = m.text.split('\\n').map((l) => l.trim());|l":
    "the lines read are Plausible's own, written at column 0 with no trailing blank (Testable.lean v4.28.0: formatFailure's `Found a counter-example!` and `(<n> shrinks)`, the counter line `issue: <p> does not hold`); only a wrapped value's continuation lines are indented, and trimmed or not they are none of these",
  "src/tools/plausible.ts|MethodExpression|const gaveUp = messages.find((m) => m.severity === 'warning' && GAVE_UP.test(m.text.trim()));|m.text":
    'GAVE_UP is anchored at the start only, and Plausible logs the warning as `Gave up after …` with nothing before it (Testable.lean v4.28.0, `Testable.check`; the REPL passes the text as is): trimming can only drop a trailing newline, which the test ignores',
  'src/tools/disprove.ts|Regex|const withVariables = d.fullName !== undefined && scopeCommands(file, d).some((c) => /^\\s*variable\\b/.test(c));|/^\\S*variable\\b/':
    'a scope command in force is a `variable` or `universe` command as written from its first token (src/syntax/source.ts, `variable`): its first word is `variable` or `universe`, and `^\\S*variable\\b` matches exactly when it is `variable`, as `^\\s*variable\\b` does',
  'src/tools/disprove.ts|ConditionalExpression|const withVariables = d.fullName !== undefined && scopeCommands(file, d).some((c) => /^\\s*variable\\b/.test(c));|true':
    '(the `d.fullName !== undefined` operand; the others are killed) only a nameless `theorem` lacks a fullName, and Lean rejects one (`theorem` takes a declId), so the probe of such content is moot',
  "src/tools/negation.ts|Regex|return /\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][\\w'.]*|\\()/.test(sig.replace(/\\b(?:Sort|Type)\\s+\\d+\\b/g, ''));|/\\b(?:Sort|Type)\\s\\d+\\b/g":
    "the replace matters only where a `Sort`/`Type` is followed by whitespace and a removed `Sort <n>`/`Type <n>` (the test's `\\s*` must then meet `*`, `_`, a letter or `(`, never a digit): `Type Type 1`, which is no Lean term; on Lean text, whether `Type 1`, `Type  1` or `Type 12` is removed or kept gives the same answer",
  "src/tools/negation.ts|Regex|return /\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][\\w'.]*|\\()/.test(sig.replace(/\\b(?:Sort|Type)\\s+\\d+\\b/g, ''));|/\\b(?:Sort|Type)\\S+\\d+\\b/g":
    "the replace matters only where a `Sort`/`Type` is followed by whitespace and a removed `Sort <n>`/`Type <n>` (the test's `\\s*` must then meet `*`, `_`, a letter or `(`, never a digit): `Type Type 1`, which is no Lean term; on Lean text, whether `Type 1`, `Type  1` or `Type 12` is removed or kept gives the same answer",
  "src/tools/negation.ts|Regex|return /\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][\\w'.]*|\\()/.test(sig.replace(/\\b(?:Sort|Type)\\s+\\d+\\b/g, ''));|/\\b(?:Sort|Type)\\s+\\d\\b/g":
    "the replace matters only where a `Sort`/`Type` is followed by whitespace and a removed `Sort <n>`/`Type <n>` (the test's `\\s*` must then meet `*`, `_`, a letter or `(`, never a digit): `Type Type 1`, which is no Lean term; on Lean text, whether `Type 1`, `Type  1` or `Type 12` is removed or kept gives the same answer",
  "src/tools/negation.ts|StringLiteral|return /\\b(?:Sort|Type)\\b\\s*(?:\\*|_|[A-Za-z_][\\w'.]*|\\()/.test(sig.replace(/\\b(?:Sort|Type)\\s+\\d+\\b/g, ''));|\"Stryker was here!\"":
    "the replace matters only where a `Sort`/`Type` is followed by whitespace and a removed `Sort <n>`/`Type <n>` (the test's `\\s*` must then meet `*`, `_`, a letter or `(`, never a digit): `Type Type 1`, which is no Lean term; on Lean text, a removed `Type <n>` left as text starting with a letter gives the same answer",
  "src/tools/negation.ts|ConditionalExpression|if (o.sig > 0 && f.sig.text[o.sig - 1] === '.' && f.sig.end[o.sig - 1] === o.start) continue;|true":
    "`o.sig > 0` -> true: at o.sig 0 the next test reads f.sig.text[-1], undefined, never '.'; `f.sig.end[o.sig - 1] === o.start` -> true: a '.' token followed by whitespace and a name is no Lean syntax (`.f` and `x.f` take no space after the dot: lean4 src/Lean/Parser/Term.lean, `dotIdent` and `proj`, `checkNoWsBefore`; a bare `x.` is the `completion` parser, an error); the `f.sig.text[o.sig - 1] === '.'` operand is killed",
  'src/tools/negation.ts|EqualityOperator|for (let k = k0; k < k1; k++) {|k <= k1':
    "the loop stops at the signature's top-level `:` before k1 whenever the theorem has a statement; without one piType finds no type and negateTheorem returns undefined whatever binderNames says",
  "src/tools/negation.ts|ConditionalExpression|} else if (depth === 1 && group && f.sig.kind[k] === 'ident') group.push(t);|true":
    "(the `f.sig.kind[k] === 'ident'` operand; the others are killed) before a binder group's `:` Lean takes only names and holes (lean4 src/Lean/Parser/Term.lean, `binderIdent := ident <|> hole`): the extra `_` it adds never equals the first component of a name occurrence it is compared with",
  "src/tools/negation.ts|ConditionalExpression|else if (depth === 0 && f.sig.kind[k] === 'ident') out.add(t);|true":
    "(the `f.sig.kind[k] === 'ident'` operand; the others are killed) a theorem's unbracketed binders before its `:` are names or holes (lean4 src/Lean/Parser/Command.lean, `declSig`: `binderIdent <|> bracketedBinder`): the extra `_` it adds never equals the first component of a name occurrence",
  'src/tools/verify-proof.ts|ConditionalExpression|if (read.text === submitted) return (offset) => read.lines.lineOf(offset) + 1;|false':
    'when the texts are equal the shift is 0 and a line index of the same text gives the same lines: the branch only saves building a second index',
  'src/backend/loaded-imports.ts|ArrayDeclaration|const trusted = readModuleProbe(answers[0] ?? []) === true && readModuleProbe(answers[1] ?? []) === false;|["Stryker was here"]':
    'a missing answer read as `[]` or as a list holding a string: readModuleProbe finds no info message in either and answers undefined, so the probe is not trusted either way',
  'src/backend/loaded-imports.ts|ArrayDeclaration|unknown.forEach((m, i) => this.#known.set(base + m, readModuleProbe(answers[from + i] ?? []) === true));|["Stryker was here"]':
    'a missing answer read as `[]` or as a list holding a string: readModuleProbe answers undefined for both, so the module is remembered as not loaded either way',
  'src/backend/loaded-imports.ts|StringLiteral|const TRUSTED = \'\\u0000trusted\';|""':
    "the trust entry's key is the base alone: no module key equals it, since a module name is never empty (moduleProbe refuses it)",
  'src/backend/loaded-imports.ts|UpdateOperator|for (let round = 0; ; round++) {|round--':
    "the cap on rounds bounds how often a request waits for other requests' questions, not what it is served with: every exit still serves the own header only on a verdict of true",
  'src/backend/loaded-imports.ts|ConditionalExpression|if (round === 2) return header;|false':
    "the cap on rounds bounds how often a request waits for other requests' questions, not what it is served with: every exit still serves the own header only on a verdict of true",
  "src/backend/session/module-probe.ts|StringLiteral|const name = line.startsWith('import ') ? line.slice('import '.length) : '';|\"\"":
    "a canonical header line is `module`, `prelude` or `[public] [meta] import [all] Name` (session/keys.ts): cut after 7 characters, any but a plain import leaves text with a space or nothing, which moduleProbe refuses as it refuses ''",
  "src/backend/session/module-probe.ts|StringLiteral|const name = line.startsWith('import ') ? line.slice('import '.length) : '';|\"Stryker was here!\"":
    "a name with spaces and `!` after a space is refused by moduleProbe, as '' is",
};
