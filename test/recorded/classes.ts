/**
 * Message classes: the texts the tools parse or match, each with the wordings Lean has used
 * at the recorded versions. Ordered: the first rule that matches names the class. A message
 * no rule names is `other`; the index test prints how many there are.
 */
import type { Severity } from './types.ts';

interface Rule {
  cls: string;
  test: RegExp;
  /** Only for messages of this severity. */
  severity?: Severity;
  /** Only for messages of a command starting like this (`#check`, `#print`…). */
  command?: RegExp;
  /** Names the wording (version-dependent spellings), from the match. */
  variant?: (m: RegExpExecArray) => string;
}

const RULES: Rule[] = [
  { cls: 'kernel_timeout', test: /^\(kernel\) deterministic timeout/ },
  { cls: 'heartbeat_timeout', test: /\(deterministic\) timeout.*maximum number of heartbeats/s },
  { cls: 'kernel_error', test: /^\(kernel\) / },
  {
    cls: 'uses_sorry',
    test: /^declaration (?:`[^`]*` )?uses (?:'sorry'|`sorry`)/,
    variant: (m) => (m[0].endsWith("'sorry'") ? "straight quotes ('sorry')" : 'backticks (`sorry`)'),
  },
  {
    cls: 'unused_variable',
    test: /^(?:unused variable `|Variable name `[^`]+` is not explicitly referenced)/,
    variant: (m) =>
      m[0].startsWith('unused') ? 'unused variable `x`' : 'Variable name `x` is not explicitly referenced.',
  },
  { cls: 'print_axioms', test: /^'.+' (?:depends on axioms: \[|does not depend on any axioms)/s },
  { cls: 'unsolved_goals', test: /^unsolved goals/ },
  { cls: 'no_goals', test: /^(?:no goals(?: to be proved)?|No goals to be solved|no goals to be proved)/ },
  { cls: 'unknown_identifier', test: /^(?:unknown identifier|Unknown identifier)/ },
  { cls: 'unknown_constant', test: /^(?:unknown constant|Unknown constant)/ },
  { cls: 'unknown_option', test: /^(?:unknown option|Unknown option)/ },
  { cls: 'unknown_namespace', test: /^(?:unknown namespace|Unknown namespace)/ },
  { cls: 'type_mismatch', test: /^(?:type mismatch|Type mismatch|[Aa]pplication type mismatch)/ },
  { cls: 'synth_failed', test: /^failed to synthesize/ },
  { cls: 'hole_synth', test: /^don't know how to synthesize/ },
  {
    cls: 'decide_failed',
    test: /^(?:Tactic `(?:native_)?decide` failed|tactic '(?:native_)?decide' (?:failed|proved))|failed to reduce to (?:true|false)/,
  },
  { cls: 'omega_failed', test: /^omega could not prove the goal/ },
  { cls: 'linarith_failed', test: /^linarith failed/ },
  {
    cls: 'plausible',
    test: /^(?:={5,}\s*)?(?:Found a counter-example|Found problems!|Unable to find a counter-example|Gave up after)/,
  },
  { cls: 'rfl_failed', test: /^(?:The rfl tactic failed|tactic 'rfl' failed|Not a `rfl`-theorem)/ },
  {
    cls: 'rewrite_failed',
    test: /^(?:Tactic `rewrite` failed: Did not find|tactic 'rewrite' failed, did not find|Did not find an occurrence)/,
  },
  { cls: 'motive_not_type_correct', test: /motive is not type correct/i },
  { cls: 'simp_no_progress', test: /^(?:`simp` made no progress|simp made no progress)/ },
  { cls: 'tactic_failed', test: /^(?:Tactic `[^`]+` failed|tactic '[^']+' failed)/ },
  { cls: 'max_recursion', test: /maximum recursion depth has been reached/ },
  {
    cls: 'termination',
    test: /^(?:fail to show termination|Could not find a decreasing measure|failed to prove termination)/,
  },
  { cls: 'deprecation_warning', test: /has been deprecated/ },
  { cls: 'eval_sorry', test: /^aborting evaluation since the expression depends on the 'sorry' axiom/ },
  { cls: 'guard_msgs_diff', test: /Docstring on `#guard_msgs` does not match/ },
  { cls: 'ambiguous_term', test: /^[Aa]mbiguous/ },
  { cls: 'parse_error', test: /^(?:unexpected |expected )/ },
  { cls: 'lint_output', test: /-- Found \d+ errors? in|All linting checks passed|Linting passed/ },
  {
    cls: 'style_linter',
    test: /set_option linter\.(?:style|hashCommand|docPrime|haveLet|oldObtain|unusedTactic|admit|mathlibStandardSet)/,
  },
  { cls: 'linter_warning', test: /This linter can be disabled with `set_option linter\./, severity: 'warning' },
  { cls: 'check_output', test: /./s, severity: 'info', command: /^#check\b/ },
  { cls: 'print_output', test: /./s, severity: 'info', command: /^#print\b/ },
  { cls: 'eval_output', test: /./s, severity: 'info', command: /^#eval\b/ },
  { cls: 'try_this', test: /^Try th(?:is|ese):/, severity: 'info' },
  { cls: 'exact_failed', test: /^`exact\?` could not close the goal/ },
  { cls: 'heartbeat_count', test: /^Used approximately \d+ heartbeats/ },
  { cls: 'trace_output', test: /^\[[\w.]+\]/ },
  { cls: 'goal_state', test: /⊢/ },
];

export function classify(
  severity: Severity,
  text: string,
  command = '',
): { cls: string; variant?: string | undefined } {
  const cmd = command.replace(/^(?:\s|--[^\n]*\n|set_option [\w.]+ \S+ in\s)*/, '');
  for (const r of RULES) {
    if (r.severity && r.severity !== severity) continue;
    if (r.command && !r.command.test(cmd)) continue;
    const m = r.test.exec(text);
    if (m) return { cls: r.cls, variant: r.variant?.(m) };
  }
  return { cls: 'other' };
}

/** Every class a rule can name, in rule order. */
export const CLASSES: readonly string[] = [...new Set(RULES.map((r) => r.cls))];

/** The goals an `unsolved goals` error prints: after its first line, separated by blank lines (Lean's `goalsToMessageData`). */
export function goalsOfUnsolved(text: string): string[] {
  const nl = text.indexOf('\n');
  if (!/^unsolved goals/.test(text) || nl < 0) return [];
  return text
    .slice(nl + 1)
    .split(/\n\n(?=\S)/)
    .map((g) => g.trim())
    .filter((g) => g.includes('⊢'));
}
