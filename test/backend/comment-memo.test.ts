/**
 * Answers given again to a job that differs only in comments (src/backend/comment-memo.ts): over what Lean printed
 * (the REPL's recorded transcripts, every tag), a command's answer, remembered and given to the same command with
 * comment lines and ending comments added, points at the same tokens; what is never remembered or given; and the
 * backend answering such a job without a session (the fake REPL, for the process side only).
 */
import t from 'tap';
import { CommentMemo, MAX_REMOVED, MAX_TEXT_CHARS } from '../../src/backend/comment-memo.ts';
import { LeanBackend, type ElabJob, type ElabResult, type LeanMessage } from '../../src/backend/index.ts';
import { toLeanMessage } from '../../src/backend/protocol/messages.ts';
import type { ReplMessage, ReplSorry } from '../../src/backend/protocol/schema.ts';
import { commentFree } from '../../src/syntax/comment-free.ts';
import { lex } from '../../src/syntax/lexer.ts';
import { LineIndex } from '../../src/syntax/positions.ts';
import { readExchanges, transcriptFiles } from '../recorded/repl-source.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { fakeEnvironment, fakeBackendLimits, fakeLaunch, silent } from './fake.ts';

const ORIGIN = { line: 1, column: 0 };
const job = (text: string, origin = ORIGIN): ElabJob => ({ header: '', commands: [{ text, origin }] });

/** A backend's answer for one command, as elabResult builds it from the REPL's. */
function answerOf(messages: readonly ReplMessage[], sorries: readonly ReplSorry[] = [], origin = ORIGIN): ElabResult {
  return {
    headerMessages: [],
    commands: [
      {
        messages: messages.map((m) => toLeanMessage(m, origin)),
        sorries: sorries.map((s) => ({ ...s, origin })),
        cached: false,
        ms: 3,
      },
    ],
    session: 1,
    reused: 0,
    sent: 1,
  };
}

/**
 * `text` with a comment line after every line break between two tokens and an ending comment on every other line
 * that ends in a token (never after the last token: what follows it is kept as it is).
 */
function withComments(text: string): string {
  const toks = lex(text);
  let last = toks.length - 1;
  while (last >= 0 && /ws|comment/.test(toks[last]!.kind)) last--;
  let out = '';
  let k = 0;
  for (let i = 0; i < toks.length; i++) {
    const tk = toks[i]!;
    const s = text.slice(tk.start, tk.end);
    if (tk.kind !== 'ws' || i > last || !s.includes('\n')) {
      out += s;
      continue;
    }
    const ending = i > 0 && !/ws|comment/.test(toks[i - 1]!.kind) && k++ % 2 === 0 ? ' -- why (sample 3)' : '';
    out += ending + s.replace('\n', '\n  -- a step (sample 9)\n');
  }
  return out;
}

/** The text at a position: the rest of its line, as far as `upTo` code points. */
function at(text: string, p: { line: number; column: number }, upTo = 12): string {
  const idx = new LineIndex(text);
  const from = idx.fromLean(p);
  const line = text.slice(from, text.indexOf('\n', from) < 0 ? text.length : text.indexOf('\n', from));
  return [...line]
    .slice(0, upTo)
    .join('')
    .replace(/\s*--.*$/, '');
}

const REPL = sharedPath('recorded/repl');
t.test(
  'over recorded answers, a comment variant gets each message at the same token',
  { skip: sharedSkip('recorded/repl') },
  async (t) => {
    let remembered = 0;
    let given = 0;
    let moved = 0;
    for (const file of transcriptFiles(REPL!)) {
      for (const { request, response } of readExchanges(file)) {
        const cmd = request.cmd;
        const messages = response.messages as ReplMessage[] | undefined;
        if (typeof cmd !== 'string' || !messages?.length || response.tactics || request.allTactics) continue;
        const memo = new CommentMemo(16);
        const plan = memo.plan('env', job(cmd));
        if (!plan) continue;
        memo.remember(plan, job(cmd), answerOf(messages, (response.sorries as ReplSorry[] | undefined) ?? []));
        const same = memo.answer(plan, job(cmd));
        if (!same) continue;
        remembered++;
        t.same(
          same.commands[0]!.messages,
          answerOf(messages).commands[0]!.messages,
          `${file}: the text itself: as recorded`,
        );
        const variant = withComments(cmd);
        const vplan = memo.plan('env', job(variant));
        if (!vplan) {
          t.equal(
            commentFree(cmd),
            undefined,
            `${file}: only a text that may read its source has a variant without a plan`,
          );
          continue;
        }
        t.equal(vplan.key, plan.key, `${file}: one key for both`);
        const v = memo.answer(vplan, job(variant));
        if (!v) continue;
        given++;
        if (variant.split('\n').length > cmd.split('\n').length) moved++;
        const got = v.commands[0]!.messages;
        const want = same.commands[0]!.messages;
        for (let i = 0; i < got.length; i++) {
          t.equal(got[i]!.text, want[i]!.text);
          t.equal(at(variant, got[i]!.pos), at(cmd, want[i]!.pos), `${file}: ${want[i]!.text.slice(0, 40)}`);
          if (want[i]!.endPos) t.equal(at(variant, got[i]!.endPos!, 0), at(cmd, want[i]!.endPos!, 0));
        }
      }
    }
    t.comment(`${remembered} recorded answers remembered, ${given} given to a variant (${moved} with lines added)`);
    t.ok(moved >= 100, `many variants have lines added (${moved})`);
    t.ok(remembered >= 100, `most recorded answers are remembered (${remembered})`);
    t.ok(given >= remembered * 0.9, `and given to their variants (${given})`);
  },
);

const msg = (line: number, column: number, data: string, endLine = line, endColumn = column + 1): ReplMessage => ({
  severity: 'error',
  pos: { line, column },
  endPos: { line: endLine, column: endColumn },
  data,
});

t.test('positions move with the lines and origin of the job asking', async (t) => {
  const memo = new CommentMemo(16);
  const a = 'theorem x : 1 = 2 := by\n  simp -- tried\n  omega\n';
  const b = 'theorem x : 1 = 2 := by\n  -- first\n  -- second\n  simp\n  omega\n';
  memo.remember(memo.plan('e', job(a))!, job(a), answerOf([msg(3, 2, 'omega could not prove the goal', 3, 7)]));
  const r = memo.answer(memo.plan('e', job(b, { line: 10, column: 4 }))!, job(b, { line: 10, column: 4 }))!;
  t.same(r.commands[0]!.messages[0], {
    severity: 'error',
    pos: { line: 14, column: 2 },
    endPos: { line: 14, column: 7 },
    text: 'omega could not prove the goal',
  });
  t.same([r.sent, r.reused, r.commands[0]!.cached], [0, 1, true], 'counted as answered without Lean');
  t.equal(memo.hits, 1);
  t.equal(memo.plan('f', job(b))!.key === memo.plan('e', job(b))!.key, false, 'keys are per environment');
  t.not(
    memo.plan('e', { header: 'import Foo', commands: [{ text: b, origin: ORIGIN }] })!.key,
    memo.plan('e', job(b))!.key,
  );
});

t.test('sorries come back on the asking text, without their proof state', async (t) => {
  const memo = new CommentMemo(16);
  const a = 'theorem x : 1 = 1 := by\n  sorry\n';
  const b = 'theorem x : 1 = 1 := by\n  -- later\n  sorry\n';
  const sorry = { goal: '⊢ 1 = 1', proofState: 4, pos: { line: 2, column: 2 }, endPos: { line: 2, column: 7 } };
  memo.remember(memo.plan('e', job(a))!, job(a), answerOf([msg(1, 8, "declaration uses 'sorry'")], [sorry]));
  const r = memo.answer(memo.plan('e', job(b))!, job(b))!;
  t.same(r.commands[0]!.sorries, [
    { goal: '⊢ 1 = 1', pos: { line: 3, column: 2 }, endPos: { line: 3, column: 7 }, origin: ORIGIN },
  ]);
});

t.test(
  'never remembered: a position the form drops, a message quoting a removed comment, a hint about changed text',
  async (t) => {
    const noisy = 'theorem x : 1 = 2 := by\n  -- note\n  omega\n';
    const cases: [string, ReplMessage][] = [
      ['on a dropped line', msg(2, 2, 'error')],
      ['at the start of a dropped line', { ...msg(2, 0, 'error'), endPos: null }],
      ['past the part of a line kept', msg(1, 30, 'error')],
      ['quoting a removed comment', msg(3, 2, 'unexpected -- note here')],
      ['a hint about a changed text', msg(3, 2, 'This simp argument is unused\n\nHint: Omit it')],
    ];
    for (const [why, m] of cases) {
      const memo = new CommentMemo(16);
      const plan = memo.plan('e', job(noisy))!;
      memo.remember(plan, job(noisy), answerOf([m]));
      t.equal(memo.answer(plan, job(noisy)), undefined, why);
    }
    const memo = new CommentMemo(16);
    const plain = 'theorem x : 1 = 2 := by\n  omega\n';
    const hint = msg(2, 2, 'x\n\nHint: Omit it');
    memo.remember(memo.plan('e', job(plain))!, job(plain), answerOf([hint]));
    t.ok(memo.answer(memo.plan('e', job(plain))!, job(plain)), 'a hint about an unchanged text is remembered');
    t.equal(memo.answer(memo.plan('e', job(noisy))!, job(noisy)), undefined, 'and not given to a changed one');
  },
);

t.test('no plan for a command asking its info tree, or one a form would change that may read its source', async (t) => {
  const memo = new CommentMemo(16);
  t.equal(
    memo.plan('e', { header: '', commands: [{ text: 'theorem x : 1 = 1 := rfl', origin: ORIGIN, infotree: true }] }),
    undefined,
  );
  t.ok(memo.plan('e', job('theorem x : 1 = 1 := rfl')));
  const evalText = '#eval 1\n  + 1';
  t.ok(memo.plan('e', job(evalText)), 'a text with nothing a form changes is its own form, read or not');
  t.equal(memo.plan('e', job('#eval 1 -- c\n  + 1')), undefined, 'with a comment: read, and refused');
  memo.remember(memo.plan('e', job(evalText))!, job(evalText), answerOf([msg(1, 0, '2')]));
  t.ok(
    memo.answer(memo.plan('e', job(evalText))!, job(evalText)),
    'the very text again: answered, as the result cache would',
  );
});

t.test('a tail keeps its own positions, from its own origin', async (t) => {
  const memo = new CommentMemo(16);
  const text = (c: string) => `theorem x : 1 = 1 := by${c}\n  rfl`;
  const mk = (c: string, tailLine: number): ElabJob => ({
    header: '',
    commands: [
      { text: text(c), origin: ORIGIN, tail: { text: '#print axioms x', origin: { line: tailLine, column: 0 } } },
    ],
  });
  const r0 = answerOf([]);
  r0.commands[0]!.tail = [
    { severity: 'info', pos: { line: 3, column: 0 }, endPos: undefined, text: "'x' depends on axioms: []" },
  ];
  memo.remember(memo.plan('e', mk('', 3))!, mk('', 3), r0);
  const r = memo.answer(memo.plan('e', mk('\n  -- c', 4))!, mk('\n  -- c', 4))!;
  t.same(r.commands[0]!.tail, [
    { severity: 'info', pos: { line: 4, column: 0 }, endPos: undefined, text: "'x' depends on axioms: []" },
  ]);
  t.not(
    memo.plan('e', mk('', 3))!.key,
    memo.plan('e', { ...mk('', 3), commands: [{ text: text(''), origin: ORIGIN }] })!.key,
  );
});

t.test('the backend answers a comment variant without a session, and remembers no failure', async (t) => {
  const env = fakeEnvironment('', 'e');
  const backend = new LeanBackend({ limits: fakeBackendLimits(), log: silent, launch: () => fakeLaunch() });
  t.teardown(() => backend.destroy());
  const ctx = { signal: new AbortController().signal };
  const first = await backend.elaborate(env, job('MSG warning careful'), ctx);
  t.equal(first.sent, 1);
  const again = await backend.elaborate(env, job('-- why\nMSG warning careful'), ctx);
  t.same([again.sent, backend.commentMemoStats()], [0, { entries: 1, hits: 1, waited: 0 }]);
  t.same(
    again.commands[0]!.messages.map((m: LeanMessage) => [m.pos.line, m.text]),
    [[2, 'careful']],
  );
  await t.rejects(backend.elaborate(env, job('CRASH\n  now'), ctx));
  await t.rejects(backend.elaborate(env, job('CRASH\n  -- again\n  now'), ctx), 'a failure is asked of Lean again');
  const off = new LeanBackend({
    limits: fakeBackendLimits({ commentMemoEntries: 0 }),
    log: silent,
    launch: () => fakeLaunch(),
  });
  t.teardown(() => off.destroy());
  await off.elaborate(env, job('MSG warning careful'), ctx);
  t.equal((await off.elaborate(env, job('-- why\nMSG warning careful'), ctx)).sent, 1, 'off: sent to Lean');
});

t.test('on the origin line, columns count from the origin', async (t) => {
  const memo = new CommentMemo(16);
  const o = { line: 5, column: 4 };
  const a = 'theorem x : 1 = 2 := by\n  -- c\n  omega';
  const b = 'theorem x : 1 = 2 := by\n  omega';
  const first = toLeanMessage(msg(1, 8, 'x is unused', 1, 9), o);
  const r0 = answerOf([], [], o);
  r0.commands[0]!.messages = [first];
  memo.remember(memo.plan('e', job(a, o))!, job(a, o), r0);
  const o2 = { line: 2, column: 7 };
  const r = memo.answer(memo.plan('e', job(b, o2))!, job(b, o2))!;
  t.same(
    r.commands[0]!.messages[0]!.pos,
    { line: 2, column: 15 },
    'column 8 of the text, on a line starting at column 7',
  );
  t.same(r.commands[0]!.messages[0]!.endPos, { line: 2, column: 16 });
});

t.test(
  'never remembered: positions outside the text, an end with no place, sorries with no place, past the bounds',
  async (t) => {
    const noisy = 'theorem x : 1 = 2 := by\n  -- note\n  omega\n';
    const o = { line: 3, column: 2 };
    const remembers = (r: ElabResult, origin = ORIGIN) => {
      const memo = new CommentMemo(16);
      const plan = memo.plan('e', job(noisy, origin))!;
      memo.remember(plan, job(noisy, origin), r);
      return memo.answer(plan, job(noisy, origin)) !== undefined;
    };
    t.ok(remembers(answerOf([msg(3, 2, 'fine', 3, 7)])), 'a message on a kept line: remembered');
    t.notOk(remembers(answerOf([msg(3, 2, 'its end is past the line', 3, 30)])), 'an end past the part kept');
    t.notOk(remembers(answerOf([msg(3, 2, 'its end is on a dropped line', 2, 4)])), 'an end on a dropped line');
    t.notOk(remembers(answerOf([msg(9, 0, 'past the last line')])), 'a line past the text');
    const before = answerOf([], [], o);
    before.commands[0]!.messages = [
      { severity: 'error', pos: { line: 2, column: 0 }, endPos: undefined, text: 'before' },
    ];
    t.notOk(remembers(before, o), 'a line before the origin');
    const left = answerOf([], [], o);
    left.commands[0]!.messages = [{ severity: 'error', pos: { line: 3, column: 0 }, endPos: undefined, text: 'left' }];
    t.notOk(remembers(left, o), 'left of the origin on its line');
    const sorry = (
      pos?: { line: number; column: number },
      endPos?: { line: number; column: number },
      goal = '⊢ 1 = 2',
    ) => answerOf([], [{ goal, pos, endPos }]);
    t.ok(remembers(sorry({ line: 3, column: 2 }, { line: 3, column: 7 })), 'a sorry on a kept line: remembered');
    t.ok(remembers(sorry(undefined, undefined)), 'a sorry without positions: remembered');
    t.notOk(remembers(sorry({ line: 2, column: 2 }, { line: 3, column: 7 })), 'a sorry on a dropped line');
    t.notOk(remembers(sorry({ line: 3, column: 2 }, { line: 2, column: 7 })), 'a sorry ending on a dropped line');
    t.notOk(
      remembers(sorry({ line: 3, column: 2 }, { line: 3, column: 7 }, 'x'.repeat(MAX_TEXT_CHARS + 1))),
      'a goal past the bound',
    );
    t.ok(remembers(answerOf([msg(3, 2, 'x'.repeat(MAX_TEXT_CHARS), 3, 7)])), 'messages up to the bound: remembered');
    t.notOk(remembers(answerOf([msg(3, 2, 'x'.repeat(MAX_TEXT_CHARS + 1), 3, 7)])), 'messages past it');
    const header = answerOf([]);
    header.headerMessages = [
      { severity: 'warning', pos: { line: 1, column: 0 }, endPos: undefined, text: 'x'.repeat(MAX_TEXT_CHARS + 1) },
    ];
    t.notOk(remembers(header), 'header messages past the bound');
    const tail = answerOf([]);
    tail.commands[0]!.tail = [
      { severity: 'info', pos: { line: 4, column: 0 }, endPos: undefined, text: 'x'.repeat(MAX_TEXT_CHARS + 1) },
    ];
    const tailJob: ElabJob = {
      header: '',
      commands: [{ text: noisy, origin: ORIGIN, tail: { text: '#print axioms x', origin: { line: 4, column: 0 } } }],
    };
    const memo = new CommentMemo(16);
    memo.remember(memo.plan('e', tailJob)!, tailJob, tail);
    t.equal(memo.answer(memo.plan('e', tailJob)!, tailJob), undefined, 'a tail past the bound');
  },
);

t.test('sorries of a text with comments move to the form and back', async (t) => {
  const memo = new CommentMemo(16);
  const a = 'theorem x : 1 = 1 := by\n  -- first\n  -- second\n  sorry\n';
  const b = 'theorem x : 1 = 1 := by -- why\n  sorry\n';
  const sorry = { goal: '⊢ 1 = 1', pos: { line: 4, column: 2 }, endPos: { line: 4, column: 7 } };
  memo.remember(memo.plan('e', job(a))!, job(a), answerOf([], [sorry]));
  const r = memo.answer(memo.plan('e', job(b))!, job(b))!;
  t.same(r.commands[0]!.sorries[0], {
    goal: '⊢ 1 = 1',
    pos: { line: 2, column: 2 },
    endPos: { line: 2, column: 7 },
    origin: ORIGIN,
  });
});

t.test('header messages come back as they were; a command with too many comments is not planned', async (t) => {
  const memo = new CommentMemo(16);
  const r0 = answerOf([]);
  const h: LeanMessage = {
    severity: 'warning',
    pos: { line: 1, column: 0 },
    endPos: undefined,
    text: 'deprecated module',
  };
  r0.headerMessages = [h];
  memo.remember(memo.plan('e', job('theorem x : 1 = 1 := rfl'))!, job('theorem x : 1 = 1 := rfl'), r0);
  t.same(
    memo.answer(memo.plan('e', job('theorem x : 1 = 1 := rfl'))!, job('theorem x : 1 = 1 := rfl'))!.headerMessages,
    [h],
  );
  const many = (n: number) => `theorem x : 1 = 1 := by\n${'  -- c\n'.repeat(n)}  rfl`;
  t.ok(memo.plan('e', job(many(MAX_REMOVED))), `${MAX_REMOVED} comments`);
  t.equal(memo.plan('e', job(many(MAX_REMOVED + 1))), undefined, `${MAX_REMOVED + 1} comments`);
});

t.test('a command with a tail and one without are never the same key, nor one command and two', async (t) => {
  const memo = new CommentMemo(16);
  const one: ElabJob = { header: '', commands: [{ text: 'x', origin: ORIGIN, tail: { text: 'y', origin: ORIGIN } }] };
  const two: ElabJob = {
    header: '',
    commands: [
      { text: 'x', origin: ORIGIN },
      { text: 'y', origin: ORIGIN },
    ],
  };
  const joined: ElabJob = { header: '', commands: [{ text: 'xy', origin: ORIGIN }] };
  const other: ElabJob = { header: '', commands: [{ text: 'z', origin: ORIGIN, tail: { text: 'y', origin: ORIGIN } }] };
  const keys = [one, two, joined, other].map((j) => memo.plan('e', j)!.key);
  t.equal(new Set(keys).size, 4);
});
