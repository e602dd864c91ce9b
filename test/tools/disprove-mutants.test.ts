/**
 * Tests written against the surviving mutants of src/tools/disprove.ts (docs/mutation.md). The double answers
 * with Lean's shapes: `#print axioms` as printAxiomsOf [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`];
 * `exact?` adds the info `Try this: exact …` before it [lean4 v4.28.0: src/Lean/Elab/Tactic/LibrarySearch.lean,
 * `exact?` via `addExactSuggestion`]; Plausible's counter-example is an error with the report (src/tools/plausible.ts,
 * recorded in ../shared/recorded/mathlib/MathlibTest/slim_check.lean); its "none found" answer as in
 * ../shared/recorded/plausible/v4.28.0/Test/Tactic.lean.
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { LeanFailure, type LeanMessage } from '../../src/backend/index.ts';
import { disprove } from '../../src/tools/disprove.ts';
import { msg, scriptedRunner, toolCtx, type Respond } from './runner.ts';

const REPORT =
  '===================\nFound a counter-example!\nissue: 1 = 2 does not hold\n(0 shrinks)\n-------------------';
type Answer = (c: Parameters<Respond>[0], lemma: string) => LeanMessage[];
const clean: Answer = (c, lemma) => [msg('info', c.origin, `'${lemma}' does not depend on any axioms`)];

/** `search` answers the counter-example search; `tactics` maps a terminal tactic to the negation probe's answer. */
function lean(search: 'found' | 'none', tactics: Record<string, Answer>) {
  return scriptedRunner((c) => {
    if (c.text.includes('plausible (config'))
      return {
        messages:
          search === 'found'
            ? [msg('error', c.origin, `\n${REPORT}\n`)]
            : [
                msg('info', c.origin, 'Unable to find a counter-example'),
                msg('warning', c.origin, 'declaration uses `sorry`'),
              ],
      };
    const lemma = /theorem (axle_disprove_\d+) : ¬/.exec(c.text)?.[1];
    if (!lemma) return {};
    const tactic = Object.keys(tactics).find((k) => c.text.includes(`:= by\n  ${k}\n`));
    return { messages: tactic ? tactics[tactic]!(c, lemma) : [msg('error', c.origin, 'tactic failed')] };
  });
}
const run = (content: string, terminal_tactics: string[], runner: ReturnType<typeof lean>, extra: object = {}) =>
  disprove.run(
    parseToolRequest('disprove', { content, environment: 'x', terminal_tactics, ...extra }),
    toolCtx(runner),
  );
const WRONG = 'theorem wrong : 1 = 2 := sorry\n';

t.test('a definition has no statement to negate: a warning, no probe, no result', async (t) => {
  const r = lean('none', { decide: clean });
  const res = await run('def f : Nat := 1\n' + WRONG, ['decide'], r, { theorems_only: false });
  t.same(res.tool_messages.warnings, ["'f': no statement to negate"]);
  t.same(Object.keys(res.results), ['wrong']);
  t.same(res.disproved_theorems, ['wrong']);
  t.notOk(
    r.jobs[0]!.commands.some((c) => c.text.includes('(1 : Nat)')),
    'nothing asked about f',
  );
});

t.test('the counter-example search states the theorem as an example, then runs plausible', async (t) => {
  const r = lean('none', {});
  await run(WRONG, [], r);
  const search = r.jobs[0]!.commands.find((c) => c.text.includes('plausible (config'))!.text;
  t.match(search, /^section\nexample : 1 = 2 := by\n {2}plausible \(config/);
});

t.test("a failed negation probe reports Lean's first error, its first 6 lines", async (t) => {
  const long: Answer = (c) => [msg('error', c.origin, 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8')];
  const res = await run(WRONG, ['omega'], lean('none', { omega: long }));
  t.equal(
    res.results['wrong'],
    'Disprove: proof of the negation failed (omega: l1\nl2\nl3\nl4\nl5\nl6; plausible: Unable to find a counter-example)',
  );
});

t.test('no error and no #print axioms answer: not a proof, and not "uses sorry"', async (t) => {
  const res = await run(WRONG, ['decide'], lean('none', { decide: () => [] }));
  t.same(res.disproved_theorems, []);
  t.equal(
    res.results['wrong'],
    'Disprove: proof of the negation failed (decide: Lean did not confirm the proof (no #print axioms answer); ' +
      'plausible: Unable to find a counter-example)',
  );
});

t.test('an info before the axioms answer (exact?’s suggestion) does not hide the answer', async (t) => {
  const suggest: Answer = (c, lemma) => [
    msg('info', c.origin, 'Try this: exact Nat.succ_ne_self 1'),
    ...clean(c, lemma),
  ];
  const res = await run(WRONG, ['exact?'], lean('none', { 'exact?': suggest }));
  t.same(res.disproved_theorems, ['wrong']);
});

t.test('an error rejects a probe even when #print axioms answers without sorryAx', async (t) => {
  const both: Answer = (c, lemma) => [msg('error', c.origin, 'unsolved goals'), ...clean(c, lemma)];
  const res = await run(WRONG, ['decide'], lean('none', { decide: both }));
  t.same(res.disproved_theorems, []);
  t.match(res.results['wrong'], /^Disprove: proof of the negation failed \(decide: unsolved goals;/);
});

t.test('the first tactic that proves the negation is the one reported', async (t) => {
  const res = await run(WRONG, ['decide', 'norm_num'], lean('none', { decide: clean, norm_num: clean }));
  t.same(res.disproved_theorems, ['wrong']);
  t.equal(res.results['wrong'], 'Disprove: the negation was proved with `decide`');
});

t.test('a proof and a counter-example: both in the result', async (t) => {
  const res = await run(WRONG, ['decide'], lean('found', { decide: clean }));
  t.equal(
    res.results['wrong'],
    `Disprove: the negation was proved with \`decide\`; plausible also found a counter-example:\n\n${REPORT}`,
  );
});

t.test('a counter-example and no proof: the failures (or none tried), then the report', async (t) => {
  const none = await run(WRONG, [], lean('found', {}));
  t.same(none.disproved_theorems, []);
  t.equal(
    none.results['wrong'],
    `Disprove: plausible found a counter-example, but no terminal tactic proved the negation (none tried)\n\n${REPORT}`,
  );
  const failed = await run(WRONG, ['omega', 'simp'], lean('found', {}));
  t.equal(
    failed.results['wrong'],
    'Disprove: plausible found a counter-example, but no terminal tactic proved the negation ' +
      `(omega: tactic failed; simp: tactic failed)\n\n${REPORT}`,
  );
});

const PLAUSIBLE_WARNING =
  '`plausible` as a terminal tactic cannot prove a negation (it closes a goal only through sorry); ' +
  'the counter-example search already runs plausible on each theorem itself';
const tacticCases: [string[], boolean][] = [
  [['plausible'], true],
  [['  plausible'], true],
  [['decide', 'plausible'], true],
  [['decide'], false],
  [['simp [Foo.plausible]'], false],
  [['Foo.plausible'], false],
];
for (const [tactics, warns] of tacticCases)
  t.test(`terminal tactics ${JSON.stringify(tactics)}: ${warns ? 'the' : 'no'} plausible warning`, async (t) => {
    const res = await run(WRONG, tactics, lean('none', {}));
    t.same(res.tool_messages.warnings, warns ? [PLAUSIBLE_WARNING] : []);
  });

t.test('needsLean is true', async (t) => {
  t.equal(disprove.needsLean(parseToolRequest('disprove', { content: WRONG, environment: 'x' })), true);
});

t.test('timings: total_ms is a difference of the clock (a stepped fake clock, no wall-clock)', async (t) => {
  const real = performance.now.bind(performance);
  let tick = 1e9;
  performance.now = () => (tick += 1);
  t.teardown(() => {
    performance.now = real;
  });
  const res = await run(WRONG, [], lean('none', {}));
  performance.now = real;
  t.same(Object.keys(res.timings).sort(), ['elaborate_ms', 'parse_ms', 'total_ms']);
  t.ok(res.timings.total_ms! < 1e6, `total_ms ${res.timings.total_ms} is a difference, not a sum of clock readings`);
});

t.test('a Lean failure (a crash, not a resource cap): no results read, the failure is a tool error', async (t) => {
  const crashing = scriptedRunner(() => {
    throw new LeanFailure('crash', 'the REPL exited', '');
  });
  const res = await disprove.run(
    parseToolRequest('disprove', { content: WRONG, environment: 'x', terminal_tactics: ['decide'] }),
    toolCtx(crashing),
  );
  t.same(res.results, {});
  t.same(res.disproved_theorems, []);
  t.same(res.negated, { wrong: '¬ (1 = 2)' });
  t.equal(res.tool_messages.errors.length, 1);
});

/** `lean` answering only the commands before the first probe: the probes were not run (Elaborated.probes: absent). */
function unanswered(base: ReturnType<typeof lean>): ReturnType<typeof lean> {
  return {
    jobs: base.jobs,
    async elaborate(env, job, o) {
      const r = await base.elaborate(env, job, o);
      const k = job.commands.findIndex((c) => c.text.includes('plausible (config'));
      return { ...r, commands: r.commands.slice(0, k), sent: k };
    },
  };
}

t.test('probes that were not run: neither a proof nor a search outcome, said as such', async (t) => {
  const res = await run(WRONG, ['decide'], unanswered(lean('found', { decide: clean })));
  t.same(res.disproved_theorems, []);
  t.equal(res.results['wrong'], 'Disprove: proof of the negation failed (decide: not run; plausible: not run)');
});

t.test('the axioms answer is an info: a warning with its text is not one', async (t) => {
  const warned: Answer = (c, lemma) => [msg('warning', c.origin, `'${lemma}' does not depend on any axioms`)];
  const res = await run(WRONG, ['decide'], lean('none', { decide: warned }));
  t.same(res.disproved_theorems, []);
});

t.test('plausible gave up, or could not test: said in the failure', async (t) => {
  const gaveUp = 'Gave up after failing to generate values that fulfill the preconditions 100 times.';
  const answering = (messages: LeanMessage[]) =>
    scriptedRunner((c) =>
      c.text.includes('plausible (config')
        ? { messages }
        : { messages: /theorem axle_disprove/.test(c.text) ? [msg('error', c.origin, 'tactic failed')] : [] },
    );
  const o = { line: 1, column: 0 };
  const up = await run(
    WRONG,
    ['omega'],
    answering([msg('warning', o, gaveUp), msg('warning', o, 'declaration uses `sorry`')]),
  );
  t.equal(up.results['wrong'], `Disprove: proof of the negation failed (omega: tactic failed; plausible: ${gaveUp})`);
  // [plausible v4.28.0: Plausible/Tactic.lean, the error when no `Testable` instance is found]; its first 3 lines.
  const noInstance =
    'Failed to create a `testable` instance for `1 = 2`.\nWhat to do:\n' +
    '1. make sure that the types you are using have `Plausible.SampleableExt` instances\n' +
    ' (you can use `#sample my_type` if you are unsure);';
  const failed = await run(WRONG, ['omega'], answering([msg('error', o, noInstance)]));
  t.equal(
    failed.results['wrong'],
    'Disprove: proof of the negation failed (omega: tactic failed; plausible could not test the statement: ' +
      'Failed to create a `testable` instance for `1 = 2`.\nWhat to do:\n' +
      '1. make sure that the types you are using have `Plausible.SampleableExt` instances)',
  );
});

t.test('section variables: a `variable` command, not a universe command that mentions one', async (t) => {
  const probeOf = async (content: string) => {
    const r = lean('none', {});
    await run(content, [], r);
    return r.jobs[0]!.commands.find((c) => c.text.includes('plausible (config'))!.text;
  };
  t.match(await probeOf('universe u /- no variable here -/ v\ntheorem p : 1 = 2 := sorry\n'), /example : 1 = 2 := by/);
  t.match(await probeOf('variable (n : Nat)\ntheorem p : n = 2 := sorry\n'), /example : type_of% @_root_\.p := by/);
});
