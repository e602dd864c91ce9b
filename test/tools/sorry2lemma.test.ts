/**
 * sorry2lemma over goals shaped exactly as the REPL reports them (see the transcripts
 * tactic_sorry, variables, app_type_mismatch, incomplete), from a scripted runner double.
 */
import t from 'tap';
import type { LeanRunner } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { parseGoals } from '../../src/tools/goals.ts';
import { sorry2lemma } from '../../src/tools/sorry2lemma.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

/** First job: the content; for a command containing `marker`, the REPL's sorries / messages given. */
function runner(script: {
  marker: string;
  sorries?: { line: number; column: number; goal: string }[];
  errors?: string[];
}) {
  return scriptedRunner((c, job) => {
    if (job > 0 || !c.text.includes(script.marker)) return {};
    return {
      messages: (script.errors ?? []).map((text) => msg('error', c.origin, text)),
      sorries: (script.sorries ?? []).map((s) => ({
        pos: { line: s.line, column: s.column },
        goal: s.goal,
        proofState: 0,
        origin: c.origin,
      })),
    };
  });
}
const ctx = (lean: LeanRunner) => toolCtx(lean);
const run = (content: string, extra: Record<string, unknown>, r: LeanRunner) =>
  sorry2lemma.run(parseToolRequest('sorry2lemma', { content, environment: 'x', ...extra }), ctx(r));

t.test('goals as the REPL prints them', async (t) => {
  t.same(parseGoals('x : Unit\n⊢ Nat'), [
    { tag: undefined, hyps: [{ names: ['x'], type: 'Unit', value: undefined }], target: 'Nat' },
  ]);
  t.same(
    parseGoals('case zero\n⊢ 0 = 0\ncase succ\nn✝ : Nat\n⊢ n✝ + 1 = 0').map((g) => [g.tag, g.target]),
    [
      ['zero', '0 = 0'],
      ['succ', 'n✝ + 1 = 0'],
    ],
  );
  t.same(parseGoals('h : 1 =\n    1\n⊢ True ∧\n    True')[0], {
    tag: undefined,
    hyps: [{ names: ['h'], type: '1 =\n    1', value: undefined }],
    target: 'True ∧\n    True',
  });
});

const content = 'theorem t (x : Nat) (h : 0 < x) : x ≠ 0 := by\n  sorry\n';

t.test('a sorry becomes a lemma before its theorem; the call site can be rebuilt', async (t) => {
  const script = { marker: 'theorem t', sorries: [{ line: 2, column: 2, goal: 'x : Nat\nh : 0 < x\n⊢ x ≠ 0' }] };
  const r = await run(content, {}, runner(script));
  t.same(r.lemma_names, ['t.sorried']);
  t.equal(
    r.content,
    'theorem t.sorried (x : Nat) (h : 0 < x) :\n    x ≠ 0 := by\n  sorry\n\ntheorem t (x : Nat) (h : 0 < x) : x ≠ 0 := by\n  sorry\n',
  );
  const rebuilt = await run(content, { reconstruct_callsite: true }, runner(script));
  t.match(rebuilt.content, /theorem t \(x : Nat\) \(h : 0 < x\) : x ≠ 0 := by\n  exact t\.sorried x h\n$/);
});

t.test('one sorry on several goals: one lemma per goal, tried in sequence with first', async (t) => {
  const src = 'theorem two : 1 = 1 ∧ 2 = 2 := by\n  constructor <;> sorry\n';
  const script = {
    marker: 'theorem two',
    sorries: [
      { line: 2, column: 18, goal: 'case left\n⊢ 1 = 1' },
      { line: 2, column: 18, goal: 'case right\n⊢ 2 = 2' },
    ],
  };
  const r = await run(src, { reconstruct_callsite: true }, runner(script));
  t.same(r.lemma_names, ['two.sorried', 'two.sorried_1']);
  t.match(r.content, /constructor <;> first \| exact two\.sorried \| exact two\.sorried_1\n/);
});

t.test(
  'inaccessible hypotheses: fresh names in the lemma, the call site keeps its sorry, with a warning',
  async (t) => {
    const src = 'theorem z (n : Nat) : n + 0 = n := by\n  cases n\n  all_goals sorry\n';
    const script = {
      marker: 'theorem z',
      sorries: [{ line: 3, column: 12, goal: 'case succ\nn✝ : Nat\n⊢ n✝ + 1 + 0 = n✝ + 1' }],
    };
    const r = await run(src, { reconstruct_callsite: true }, runner(script));
    t.match(r.content, /theorem z\.sorried \(n_1 : Nat\) :\n    n_1 \+ 1 \+ 0 = n_1 \+ 1 := by/);
    t.match(r.content, /all_goals sorry \/- see z\.sorried -\//);
    t.match(r.tool_messages.warnings[0], /no usable name/);
  },
);

t.test('unsolved goals at an error location; extract flags; the whole context or the relevant part', async (t) => {
  const src = 'theorem u (a b c : Nat) (h : a = b) (k : c = 1) : a = a := by\n  skip\n';
  const script = { marker: 'theorem u', errors: ['unsolved goals\na b c : Nat\nh : a = b\nk : c = 1\n⊢ a = a'] };
  const r = await run(src, {}, runner(script));
  t.same(r.lemma_names, ['u.unsolved']);
  t.match(r.content, /theorem u\.unsolved \(a b c : Nat\) \(h : a = b\) \(k : c = 1\) :/);
  const small = await run(src, { include_whole_context: false }, runner(script));
  t.match(
    small.content,
    /theorem u\.unsolved \(a b : Nat\) \(h : a = b\) :\n    a = a/,
    'h is about a (relevant) and needs b; k and c are dropped',
  );
  t.same((await run(src, { extract_errors: false }, runner(script))).lemma_names, []);
  const none = await run(src, { extract_errors: false, extract_sorries: false }, runner(script));
  t.equal(none.content, src);
  t.match(none.tool_messages.infos[0], /nothing to do/);
});

t.test('merge_duplicates: lemmas with one statement become one, every call site pointing at it', async (t) => {
  const src = 'theorem d (x : Nat) : x = x ∧ x = x := by\n  constructor\n  · sorry\n  · sorry\n';
  const goal = 'x : Nat\n⊢ x = x';
  const script = {
    marker: 'theorem d',
    sorries: [
      { line: 3, column: 4, goal },
      { line: 4, column: 4, goal },
    ],
  };
  const plain = await run(src, { reconstruct_callsite: true }, runner(script));
  t.same(plain.lemma_names, ['d.sorried', 'd.sorried_1'], 'default false: one lemma per sorry, as before');
  const r = await run(src, { reconstruct_callsite: true, merge_duplicates: true }, runner(script));
  t.same(r.lemma_names, ['d.sorried']);
  t.equal((r.content.match(/theorem d\.sorried/g) ?? []).length, 1, 'one lemma in the output');
  t.equal((r.content.match(/exact d\.sorried x/g) ?? []).length, 2, 'both call sites call it');
  const other = { ...script, sorries: [script.sorries[0]!, { line: 4, column: 4, goal: 'x : Nat\n⊢ x + 0 = x' }] };
  const distinct = await run(src, { merge_duplicates: true }, runner(other));
  t.same(distinct.lemma_names, ['d.sorried', 'd.sorried_1'], 'different statements stay apart');
});
