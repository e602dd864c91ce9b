/**
 * The reader of Plausible's answers (src/tools/plausible.ts) on what Plausible printed, as recorded
 * by `#guard_msgs` in its own tests and in Mathlib's (../shared/recorded/plausible/<tag>/Test/Tactic.lean,
 * ../shared/recorded/mathlib/MathlibTest/slim_check.lean), and disprove's report of a recorded
 * counter-example (a scripted runner answering the search probe with the recorded text).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { disprove } from '../../src/tools/disprove.ts';
import { readSearch, searchSummary, type SearchOutcome } from '../../src/tools/plausible.ts';
import { guardMsgsItems } from '../recorded/guard-msgs-source.ts';
import type { RecordedItem } from '../recorded/types.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const FILES = [
  'plausible/v4.21.0/Test/Tactic.lean',
  'plausible/v4.28.0/Test/Tactic.lean',
  'mathlib/MathlibTest/slim_check.lean',
];
const origin = { line: 1, column: 0 };

function recorded(rel: string): RecordedItem[] | string {
  const root = sharedPath('recorded');
  if (!root) return sharedSkip('recorded') as string;
  const file = path.join(root, rel);
  if (!existsSync(file)) return `no ${file}`;
  // Only the commands that run the tactic, with every message recorded (no `(drop …)` filter).
  return guardMsgsItems(readFileSync(file, 'utf8'), rel, rel).filter(
    (i) => /\bplausible\b/.test(i.input) && !/^\s*#(eval|sample|test)/m.test(i.input) && i.filter === undefined,
  );
}

for (const rel of FILES) {
  const items = recorded(rel);
  t.test(
    `each recorded plausible answer is read as what it says (${rel})`,
    { skip: typeof items === 'string' && items },
    async (t) => {
      const kinds = new Set<string>();
      for (const item of items as RecordedItem[]) {
        const at = `${rel}:${item.line}`;
        const o = readSearch(
          item.messages.map((m) => msg(m.severity === 'trace' ? 'info' : m.severity, origin, m.text)),
        );
        const errors = item.messages.filter((m) => m.severity === 'error');
        const found = errors.find((m) => m.text.includes('Found a counter-example!'));
        if (found) {
          t.equal(o?.kind, 'counterexample', `${at}: a counter-example`);
          if (o?.kind !== 'counterexample') continue;
          const shrinks = /\((\d+) shrinks\)/.exec(found.text)?.[1];
          t.equal(o.shrinks, shrinks === undefined ? undefined : Number(shrinks), `${at}: its shrinks`);
          t.same(
            o.issues,
            [...found.text.matchAll(/^issue: (.*)$/gm)].map((m) => m[1]),
            `${at}: its issues`,
          );
          t.ok(o.report.includes('Found a counter-example!'), `${at}: the report is Plausible's text`);
        } else if (errors.length > 0) t.equal(o?.kind, 'failed', `${at}: another error: plausible could not test`);
        else if (item.messages.some((m) => m.text.startsWith('Gave up after'))) t.equal(o?.kind, 'gave-up', at);
        else if (item.messages.some((m) => m.text === 'Unable to find a counter-example')) t.equal(o?.kind, 'none', at);
        else continue;
        kinds.add(o!.kind);
      }
      t.ok(kinds.has('counterexample'), 'the file records counter-examples');
    },
  );
}

// Mathlib's recorded answer for `example (f : ℤ → ℤ) : Injective f := by plausible (config := { randomSeed := some 257 })`.
const slim = recorded('mathlib/MathlibTest/slim_check.lean');
t.test(
  'disprove reports a recorded counter-example with its issue and shrinks, not as a disproof',
  { skip: typeof slim === 'string' && slim },
  async (t) => {
    const items = slim as RecordedItem[];
    const item = items.find((i) => i.input.includes('example (f : ℤ → ℤ) : Injective f := by'));
    if (!item) return t.fail('the recorded Injective example is missing');
    const answer = item.messages.map((m) => msg(m.severity === 'trace' ? 'info' : m.severity, origin, m.text));
    const runner = scriptedRunner((c) =>
      c.text.includes('plausible (config')
        ? { messages: answer }
        : /theorem axle_disprove/.test(c.text)
          ? { messages: [msg('error', c.origin, 'grind failed')] }
          : {},
    );
    const content = 'theorem inj (f : ℤ → ℤ) : Function.Injective f := sorry\n';
    const res = await disprove.run(parseToolRequest('disprove', { content, environment: 'x' }), toolCtx(runner));
    const search = runner.jobs[0]!.commands.find((c) => c.text.includes('plausible'))!.text;
    t.match(
      search,
      /^section\nexample : ∀ \(f : ℤ → ℤ\), Function\.Injective f := by\n {2}plausible /,
      'plausible on the theorem itself',
    );
    t.same(res.disproved_theorems, [], 'a counter-example is not a proof of the negation');
    t.match(
      res.results.inj,
      /^Disprove: plausible found a counter-example, but no terminal tactic proved the negation \(grind: grind failed\)/,
    );
    t.match(res.results.inj, /issue: 0 = 1 does not hold\n\(5 shrinks\)/, 'the issue text and the number of shrinks');
  },
);

/*
 * Each branch of the reader on Plausible's own texts [plausible v4.28.0: Plausible/Testable.lean, `Testable.check`
 * (the info `Unable to find a counter-example`, the gave-up warning, the counter-example thrown as an error) and
 * `formatFailure` (`\n===================`, the message, the counter lines, `(<n> shrinks)`, `-------------------`);
 * Plausible/Tactic.lean, the error `Failed to create a \`testable\` instance for …`]. A REPL passes a message's
 * text as Lean's `data`; a trailing newline (as a front end may add) is read as without it.
 */
const M = (severity: 'error' | 'warning' | 'info', text: string) => msg(severity, origin, text);
const GAVE_UP = 'Gave up after failing to generate values that fulfill the preconditions 100 times.';
const SORRY = M('warning', 'declaration uses `sorry`');
const UNKNOWN = 'plausible answered nothing it is known to answer';

t.test('not run: no outcome', async (t) => {
  t.equal(readSearch(undefined), undefined);
  t.equal(searchSummary(undefined), 'plausible: not run');
});

t.test('a counter-example: its report, issues and the number of shrinks, any natural number', async (t) => {
  // formatFailure prints `s!"({n} shrinks)"` for the count n : Nat; the counter lines as slim_check.lean records them.
  const text =
    '\n===================\nFound a counter-example!\nx := 104\nguard: ⋯\nissue: 104 < 100 does not hold\n' +
    '(12 shrinks)\n-------------------';
  t.same(readSearch([M('error', text), SORRY]), {
    kind: 'counterexample',
    report: text.trim(),
    issues: ['104 < 100 does not hold'],
    shrinks: 12,
  });
  // Quiet mode throws the message alone: no issue, no count.
  t.same(readSearch([M('error', 'Found a counter-example!')]), {
    kind: 'counterexample',
    report: 'Found a counter-example!',
    issues: [],
    shrinks: undefined,
  });
});

t.test("the count is read from formatFailure's own line, not from a value printed like it", async (t) => {
  // A counter line is `<var> := <repr x>` (Testable.lean, addVarInfo): a value's Repr may print any text, and a
  // long one wraps onto indented lines.
  const text =
    '\n===================\nFound a counter-example!\na := (3 shrinks)\nb := f\n  (4 shrinks) x\n' +
    'issue: a = b does not hold\n(1 shrinks)\n-------------------';
  const o = readSearch([M('error', text)]);
  t.equal(o?.kind === 'counterexample' && o.shrinks, 1);
});

t.test('a counter-example only as Plausible throws it, an error', async (t) => {
  t.same(readSearch([M('info', 'Found a counter-example!'), M('info', 'Unable to find a counter-example'), SORRY]), {
    kind: 'none',
  });
});

t.test("another error: plausible could not test the statement, Lean's first 3 lines", async (t) => {
  const noInstance =
    'Failed to create a `testable` instance for `∀ (f : ℕ → ℕ), f = f`.\nWhat to do:\n' +
    '1. make sure that the types you are using have `Plausible.SampleableExt` instances\n' +
    ' (you can use `#sample my_type` if you are unsure);\n2. make sure that the relations and predicates …';
  const o = readSearch([M('error', noInstance)]);
  t.same(o, {
    kind: 'failed',
    text:
      'Failed to create a `testable` instance for `∀ (f : ℕ → ℕ), f = f`.\nWhat to do:\n' +
      '1. make sure that the types you are using have `Plausible.SampleableExt` instances',
  });
  t.equal(
    searchSummary(o),
    'plausible could not test the statement: Failed to create a `testable` instance for `∀ (f : ℕ → ℕ), f = f`.\n' +
      'What to do:\n1. make sure that the types you are using have `Plausible.SampleableExt` instances',
  );
  // The first error decides, after the warnings; its text without the trailing newline.
  t.same(readSearch([SORRY, M('error', "unknown identifier 'foo'\n"), M('error', 'second')]), {
    kind: 'failed',
    text: "unknown identifier 'foo'",
  });
});

t.test('gave up: the warning, its text', async (t) => {
  const o = readSearch([M('warning', `${GAVE_UP}\n`), SORRY]);
  t.same(o, { kind: 'gave-up', text: GAVE_UP });
  t.equal(searchSummary(o), `plausible: ${GAVE_UP}`);
  // Only a warning that starts with it: an info with the text, or a warning that quotes it, is not Plausible's answer.
  t.same(readSearch([M('info', GAVE_UP)]), { kind: 'failed', text: UNKNOWN });
  t.same(readSearch([M('warning', `note: ${GAVE_UP}`)]), { kind: 'failed', text: UNKNOWN });
});

t.test('none found: the info, exactly', async (t) => {
  const o = readSearch([M('info', 'Unable to find a counter-example\n'), SORRY]);
  t.same(o, { kind: 'none' });
  t.equal(searchSummary(o), 'plausible: Unable to find a counter-example');
  t.same(readSearch([M('warning', 'Unable to find a counter-example')]), { kind: 'failed', text: UNKNOWN });
  t.same(readSearch([M('info', 'Unable to find a counter-example, yet')]), { kind: 'failed', text: UNKNOWN });
});

t.test('nothing known: quiet mode logs nothing on success, only the sorry warning remains', async (t) => {
  // `if !cfg.quiet then Lean.logInfo …` (Testable.check): a quiet search that found nothing says nothing.
  for (const messages of [[SORRY], []]) {
    const o = readSearch(messages);
    t.same(o, { kind: 'failed', text: UNKNOWN });
    t.equal(searchSummary(o), `plausible could not test the statement: ${UNKNOWN}`);
  }
});

t.test('the summary of each outcome', async (t) => {
  const outcomes: [SearchOutcome, string][] = [
    [{ kind: 'counterexample', report: 'r', issues: [], shrinks: 0 }, 'plausible: Found a counter-example!'],
    [{ kind: 'none' }, 'plausible: Unable to find a counter-example'],
    [{ kind: 'gave-up', text: 'g' }, 'plausible: g'],
    [{ kind: 'failed', text: 'f' }, 'plausible could not test the statement: f'],
  ];
  for (const [o, want] of outcomes) t.equal(searchSummary(o), want, o.kind);
});
