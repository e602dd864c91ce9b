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
import { RecordedAnswers } from './repl-answers.ts';
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
