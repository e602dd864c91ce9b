// Surviving mutants argued equivalent (no test can tell them from the original), each with its
// argument. Keyed `file|mutator|original line (trimmed)|replacement`, as the report lists them, so
// a change to the line makes the argument lapse and the mutant show again.
export const EQUIVALENT = {
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
  "src/tools/elaborate.ts|Regex|return squash(bare).replace(/^:\\s*/, '');|/^:\\s/":
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
};
