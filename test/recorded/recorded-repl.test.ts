/**
 * The recorded REPL (issue 27 §2) through the product's backend: recorded inputs get the recorded
 * answers (framing, parsing, session and position moves are the product's), anything else is
 * refused loudly, and the service's own wrappers are undone as repl-answers.ts documents.
 */
import path from 'node:path';
import t from 'tap';
import { LeanFailure, type ElabJob } from '../../src/backend/index.ts';
import { LEAN_DEFAULT_MAX_HEARTBEATS, withBudget, WRAP_LINES } from '../../src/backend/heartbeats/max-heartbeats.ts';
import { probedHeader } from '../../src/backend/session/header-probe.ts';
import { readExchanges } from './repl-source.ts';
import { RecordedAnswers, type Answer } from './repl-answers.ts';
import { doubleAnswer } from './repl-doubles.ts';
import { originalFromFull } from './repl-infotree.ts';
import { recordedLean, recordedSkip, recordedTagDir } from './recorded-launch.ts';

const TAG = 'v4.28.0';
const o = { line: 1, column: 0 };
const job = (texts: string[], header = ''): ElabJob => ({
  header,
  commands: texts.map((text) => ({ text, origin: o })),
});

t.test('recorded inputs get the recorded answers through the real backend', { skip: recordedSkip(TAG) }, async (t) => {
  const rec = recordedLean(t, TAG)!;
  // dup_msg.in: `def f := 2` fresh, then `#check f` and `#check g` each on the env before.
  const recorded = readExchanges(path.join(recordedTagDir(TAG)!, 'dup_msg.in'));
  const texts = recorded.map((x) => x.request.cmd as string);
  const r = await rec.backend.elaborate(rec.env, job(texts), { signal: new AbortController().signal });
  t.same(rec.refusals(), [], 'every input was recorded');
  r.commands.forEach((c, i) => {
    const want = ((recorded[i]!.response.messages ?? []) as { data: string; pos: object; severity: string }[]).map(
      (m) => ({ severity: m.severity, pos: m.pos, text: m.data }),
    );
    t.same(
      c.messages.map((m) => ({ severity: m.severity, pos: m.pos, text: m.text })),
      want,
      `${JSON.stringify(texts[i])}: the recorded messages`,
    );
  });
});

t.test('an input with no recording is refused loudly, never answered', { skip: recordedSkip(TAG) }, async (t) => {
  const rec = recordedLean(t, TAG)!;
  await t.rejects(
    rec.backend.elaborate(rec.env, job(['theorem not_recorded : 1 = 1 := rfl']), {
      signal: new AbortController().signal,
    }),
    LeanFailure,
    'the backend sees a dead process, as for a crash',
  );
  t.match(rec.refusals(), [/no recording of "theorem not_recorded : 1 = 1 := rfl"/]);
});

t.test('the service wrappers: header probe and heartbeat budget', { skip: recordedSkip(TAG) }, async (t) => {
  const a = new RecordedAnswers(recordedTagDir(TAG)!);
  t.ok(a.files > 50, `${a.files} transcripts of ${TAG}`);
  const h = a.answer({ cmd: probedHeader('').cmd });
  t.match(h, { kind: 'answer', from: /^options\.in:1$/ }, "the empty header's probe is recorded (options.in)");
  t.match(
    h.kind === 'answer' ? h.response.messages : [],
    [{ severity: 'info', data: /^constructor List\.cons/ }],
    "the probe's recorded answer, whole",
  );
  const env = h.kind === 'answer' ? (h.response.env as number) : -1;
  const plain = a.answer({ cmd: 'def f := 2', env });
  const f = plain.kind === 'answer' ? (plain.response.env as number) : -1;
  const check = a.answer({ cmd: '#check f', env: f });
  const wrapped = a.answer({ cmd: withBudget('#check f', LEAN_DEFAULT_MAX_HEARTBEATS), env: f });
  t.equal(check.kind, 'answer');
  t.equal(wrapped.kind, 'answer', "Lean's default limit is the limit the recording ran under");
  if (check.kind === 'answer' && wrapped.kind === 'answer') {
    const line = (r: Record<string, unknown>) => (r.messages as { pos: { line: number } }[])[0]!.pos.line;
    t.equal(
      line(wrapped.response),
      line(check.response) + WRAP_LINES,
      'positions as Lean reports them for the wrapped text',
    );
  }
  t.match(
    a.answer({ cmd: withBudget('#check f', 1000), env: f }),
    { kind: 'refusal', reason: /heartbeat budget 1000 is not the limit/ },
    'a smaller budget: the recording cannot say whether the command fits it',
  );
  t.match(
    a.answer({ cmd: 'import Lean' }),
    { kind: 'answer' },
    'the header alone, as recorded (not what the service sends)',
  );
  t.match(
    a.answer({ cmd: probedHeader('import Lean').cmd }),
    { kind: 'refusal', reason: /no recording of the header with the service's probe/ },
    '`import Lean` is recorded alone, never with the probe: no invented answer',
  );
  t.match(a.answer({ cmd: probedHeader('import Nonexistent').cmd }), { kind: 'refusal' });
  t.match(a.answer({ cmd: '#check f', env: 999 }), { kind: 'refusal', reason: /not handed out/ });
  t.match(
    a.answer({ cmd: 'example : True := by sorry', env, allTactics: true }),
    { kind: 'refusal' },
    'only recorded inputs',
  );
});

t.test('request options must be those of the recording', { skip: recordedSkip(TAG) }, async (t) => {
  const a = new RecordedAnswers(recordedTagDir(TAG)!);
  const h = a.answer({ cmd: probedHeader('').cmd });
  const env = h.kind === 'answer' ? (h.response.env as number) : -1;
  // dup_msg.in records `def f := 2` plain only.
  for (const opts of [{ infotree: 'original' }, { allTactics: true }, { rootGoals: true }])
    t.match(
      a.answer({ cmd: 'def f := 2', env, ...opts }),
      { kind: 'refusal', reason: /no recording of "def f := 2" with/ },
      `${JSON.stringify(opts)}: the option is not ignored`,
    );
  // infotree.in records `def f (h : Int) : Nat := by constructor` with "infotree": "substantive" only.
  const cmd = 'def f (h : Int) : Nat := by constructor';
  const same = a.answer({ cmd, env, infotree: 'substantive' });
  t.match(same, { kind: 'answer' }, 'the recorded option value');
  t.ok(same.kind === 'answer' && 'infotree' in same.response, 'answered whole, with its info tree');
  t.match(a.answer({ cmd, env, infotree: 'original' }), { kind: 'refusal' }, 'another value is another request');
  t.match(a.answer({ cmd, env, extra: 1 }), { kind: 'refusal', reason: /fields no recording answers for: extra/ });
});

t.test(
  'a recording made with infotree answers the plain request, without the info tree',
  { skip: recordedSkip(TAG) },
  async (t) => {
    const a = new RecordedAnswers(recordedTagDir(TAG)!);
    const h = a.answer({ cmd: probedHeader('').cmd });
    const env = h.kind === 'answer' ? (h.response.env as number) : -1;
    // infotree.in records `def f (h : Int) : Nat := by constructor` only with "infotree": "substantive".
    const recorded = readExchanges(path.join(recordedTagDir(TAG)!, 'infotree.in'))[0]!;
    t.ok('infotree' in recorded.request && 'infotree' in recorded.response, 'recorded with its info tree');
    const r = a.answer({ cmd: recorded.request.cmd, env });
    t.equal(r.kind, 'answer');
    if (r.kind === 'answer') {
      t.notOk('infotree' in r.response, 'the field the option added is removed');
      t.same(r.response.messages, recorded.response.messages, 'the messages are the recording');
    }
  },
);

t.test('the original info tree is the full one cut as the REPL cuts it (repl-infotree.ts)', async (t) => {
  const tactic = (synthetic: boolean, children: unknown[] = []) => ({
    kind: 'TacticInfo',
    node: { stx: { range: { synthetic } }, goalsBefore: [], goalsAfter: [] },
    children,
  });
  const a = tactic(false);
  const b = tactic(false);
  const term = { kind: 'TermInfo', node: {}, children: [tactic(true, [a]), { goalState: '⊢ p' }] };
  const full = { env: 1, infotree: [{ kind: 'CommandInfo', node: {}, children: [term, tactic(false, [b])] }] };
  t.same(
    originalFromFull(full),
    { env: 1, infotree: [a, tactic(false, [b])] },
    'original tactic nodes kept in pre-order, each with its kept descendants; the rest lifted out, holes dropped',
  );
  t.same(originalFromFull({ env: 1, infotree: [term.children[1]] }), { env: 1 }, 'no tree left: no field');
  t.equal(originalFromFull({ env: 1 }), undefined, 'no tree: nothing to cut');
});

t.test('an original request is answered from the recorded full tree', { skip: recordedSkip(TAG) }, async (t) => {
  const a = new RecordedAnswers(recordedTagDir(TAG)!);
  const h = a.answer({ cmd: probedHeader('').cmd });
  const env = h.kind === 'answer' ? (h.response.env as number) : -1;
  // infotree_theorem.in records `theorem show_p …` with "infotree": "full" only.
  const recorded = readExchanges(path.join(recordedTagDir(TAG)!, 'infotree_theorem.in'))[0]!;
  t.equal(recorded.request.infotree, 'full');
  const r = a.answer({ cmd: recorded.request.cmd, env, infotree: 'original' });
  t.equal(r.kind, 'answer');
  const nodes = (trees: unknown): { kind: string; node: { stx: { range: { synthetic: boolean } } } }[] =>
    (trees as { kind: string; node: never; children: unknown }[]).flatMap((x) => [x, ...nodes(x.children)]);
  const cut = r.kind === 'answer' ? nodes(r.response.infotree) : [];
  const originals = nodes(recorded.response.infotree).filter(
    (x) => x.kind === 'TacticInfo' && !x.node.stx.range.synthetic,
  );
  t.ok(cut.length > 0 && cut.length === originals.length, `${cut.length} nodes: the full tree's original tactic nodes`);
  t.same(
    cut.map((x) => x.node),
    originals.map((x) => x.node),
    'each as the full tree printed it, in its order',
  );
  t.match(a.answer({ cmd: recorded.request.cmd, env, infotree: 'substantive' }), { kind: 'refusal' }, 'not others');
});

t.test('typed doubles answer only when turned on, and only what they name', { skip: recordedSkip(TAG) }, async (t) => {
  const a = new RecordedAnswers(recordedTagDir(TAG)!);
  const header = { cmd: probedHeader('import Lean').cmd };
  t.equal(doubleAnswer(a, header, {}), undefined, 'off: the header with the probe stays refused');
  t.equal(doubleAnswer(a, { cmd: probedHeader('import Nonexistent').cmd }, { probe: true }), undefined, 'unrecorded');
  const h = doubleAnswer(a, header, { probe: true });
  t.match(h, { double: 'probe', answer: { kind: 'answer', response: { env: Number } } }, '`import Lean` as recorded');
  const env = h?.answer.kind === 'answer' ? (h.answer.response.env as number) : -1;
  const helper = '-- a helper of the service';
  t.equal(doubleAnswer(a, { cmd: helper, env }, {}), undefined, 'off: no pass');
  const p = doubleAnswer(a, { cmd: helper, env }, { pass: [helper] });
  t.match(p, { double: 'pass', answer: { kind: 'answer', response: { env: Number } } }, 'the named text passes');
  const passed = p?.answer.kind === 'answer' ? (p.answer.response.env as number) : -1;
  // pickle_proof_state_1.in: `def f : Nat := by sorry` on `import Lean`, a warning on line 1.
  const cmd = 'def f : Nat := by sorry';
  const plain = a.answer({ cmd, env: passed });
  t.match(plain, { kind: 'answer' }, 'the env after the pass stands for the recorded `import Lean` env');
  const u = doubleAnswer(a, { cmd: `#wrap\n${cmd}`, env: passed }, { unwrap: '#wrap' });
  const line = (x: Answer | undefined) =>
    x?.kind === 'answer' ? (x.response.messages as { pos: { line: number } }[])[0]!.pos.line : -1;
  t.equal(u?.double, 'unwrap');
  t.equal(line(u?.answer), line(plain) + 1, 'the wrapped command answered as recorded, one line down');
  t.equal(doubleAnswer(a, { cmd: `#wrap\n  ${cmd}`, env: passed }, { unwrap: '#wrap' }), undefined, 'padded: no');
  t.equal(doubleAnswer(a, { cmd: '#wrap\ndef g := 1', env: passed }, { unwrap: '#wrap' }), undefined, 'unrecorded');
});
