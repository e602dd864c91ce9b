/**
 * Issue 27, defect 6: the backend's heartbeat wrap must not trip Mathlib's `linter.style.maxHeartbeats`.
 * The linter's rule, as its source states it [mathlib4 Mathlib/Tactic/Linter/Style.lean,
 * `getSetOptionMaxHeartbeatsComment`, `getDeprecatedSyntax`]: for `set_option <…maxHeartbeats…> n in cmd`,
 * the trailing trivia of the `in` atom (whitespace and comments up to the next token) must not be empty
 * after `trimLeft`. No recording of the linter's warning exists under ../shared/recorded (its README
 * lists it as thin); `npm run lean:doctor` checks it against Mathlib.
 */
import t from 'tap';
import {
  BUDGET_COMMENT,
  isBudgetBlock,
  scopeLimit,
  scopeLimits,
  sentBudget,
  withBudget,
  WRAP_LINES,
} from '../../src/backend/heartbeats/max-heartbeats.ts';

/** The linter's judgment of the first `set_option maxHeartbeats n in`: true when it would warn. */
function mathlibLintFires(text: string): boolean {
  const m = /^set_option\s+\S*maxHeartbeats\s+\d+\s+in/.exec(text);
  if (!m) return false;
  // Trailing trivia of `in`: whitespace and `--` comments (one line each) up to the next token.
  const rest = text.slice(m[0].length);
  const trailing = /^(?:\s|--[^\n]*)*/.exec(rest)![0];
  return trailing.trimStart() === '';
}

t.test("the budget wrap carries a comment after `in`: Mathlib's maxHeartbeats linter stays quiet", async (t) => {
  const cmd = 'theorem x : True := trivial';
  t.ok(mathlibLintFires(`set_option maxHeartbeats 5000 in\n${cmd}`), 'the linter rule as cited: a bare wrap warns');
  const sent = withBudget(cmd, 5000);
  t.notOk(mathlibLintFires(sent), sent);
  t.equal(sent.split('\n').length - cmd.split('\n').length, WRAP_LINES, 'still one line on top');
  t.equal(sentBudget(sent), 5000, 'the budget is read back');
  t.equal(scopeLimit(sent), undefined, 'a wrapped command sets no limit for later commands');
});

// Issue 27, defect 8: a limit set inside `section`/`namespace` ends at its `end` [lean4 v4.28.0:
// src/Lean/Elab/BuiltinCommand.lean, `elabEnd`, options live in the scope].
t.test('the limit in force follows section/namespace … end', async (t) => {
  const texts = [
    'section',
    'set_option maxHeartbeats 400000',
    'theorem a : True := trivial',
    'end',
    'theorem b : True := trivial',
    'namespace N',
    '/- note -/\n-- note\nset_option maxHeartbeats 0 -- why',
    'theorem c : True := trivial',
    'noncomputable section',
    'set_option maxHeartbeats 1000',
    'theorem d : True := trivial',
    'end',
    'theorem e : True := trivial',
    'end N',
    'theorem f : True := trivial',
    'set_option maxHeartbeats 50',
    'mutual\ntheorem g : True := trivial\nend',
    'theorem h : True := trivial',
  ];
  const at = Object.fromEntries(texts.map((x, i) => [x, scopeLimits(texts)[i]]));
  t.equal(at['theorem a : True := trivial'], 400000);
  t.equal(at['theorem b : True := trivial'], 200000, 'back to the default after `end`');
  t.equal(at['theorem c : True := trivial'], 0);
  t.equal(at['theorem d : True := trivial'], 1000);
  t.equal(at['theorem e : True := trivial'], 0, 'the namespace’s limit again after the inner `end`');
  t.equal(at['theorem f : True := trivial'], 200000, 'the default after `end N`');
  t.equal(at['theorem h : True := trivial'], 50, '`mutual … end` is no scope');
});

// Issue 27, defect 13: the tools' probe blocks (`section … end`, `namespace N … end N`) get a budget too.
t.test('a probe block gets its budget inside, on its second line', async (t) => {
  const probe = 'namespace N\ntheorem axle_disprove_0 : ¬ (1 = 2) := by\n  decide\nend N';
  t.ok(isBudgetBlock(probe));
  t.notOk(isBudgetBlock('namespace N'), 'a lone scope command is no block');
  t.notOk(isBudgetBlock('theorem t : True := trivial'));
  const sent = withBudget(probe, 700);
  t.equal(sent.split('\n')[1], `set_option maxHeartbeats 700 ${BUDGET_COMMENT}`);
  t.equal(sent.split('\n').length - probe.split('\n').length, WRAP_LINES, 'one line added, below the first');
  t.equal(sentBudget(sent), 700);
  t.notOk(mathlibLintFires(sent), 'a standalone set_option is not what the maxHeartbeats linter flags');
});
