/**
 * The recorded REPL (issue 27 §2) through the product's backend: recorded inputs get the recorded
 * answers (framing, parsing, session and position moves are the product's), anything else is
 * refused loudly, and the service's own wrappers are undone as repl-answers.ts documents.
 */
import path from 'node:path';
import t from 'tap';
import { LeanFailure, type ElabJob } from '../../src/backend/index.ts';
import { withBudget, WRAP_LINES } from '../../src/backend/deadline/heartbeats.ts';
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
  t.equal(h.kind, 'answer', 'the empty header is Init');
  const env = h.kind === 'answer' ? (h.response.env as number) : -1;
  const plain = a.answer({ cmd: 'def f := 2', env });
  const f = plain.kind === 'answer' ? (plain.response.env as number) : -1;
  const check = a.answer({ cmd: '#check f', env: f });
  const wrapped = a.answer({ cmd: withBudget('#check f', 1000), env: f });
  t.equal(check.kind, 'answer');
  t.equal(wrapped.kind, 'answer');
  if (check.kind === 'answer' && wrapped.kind === 'answer') {
    const line = (r: Record<string, unknown>) => (r.messages as { pos: { line: number } }[])[0]!.pos.line;
    t.equal(
      line(wrapped.response),
      line(check.response) + WRAP_LINES,
      'positions as Lean reports them for the wrapped text',
    );
  }
  t.match(
    a.answer({ cmd: 'import Lean' }),
    { kind: 'refusal' },
    'a header without the probe is not what the service sends',
  );
  t.match(
    a.answer({ cmd: probedHeader('import Lean').cmd }),
    { kind: 'answer' },
    '`import Lean` is recorded as a header',
  );
  t.match(a.answer({ cmd: probedHeader('import Nonexistent').cmd }), { kind: 'refusal' });
  t.match(a.answer({ cmd: '#check f', env: 999 }), { kind: 'refusal', reason: /not handed out/ });
  t.match(
    a.answer({ cmd: 'example : True := by sorry', env, allTactics: true }),
    { kind: 'refusal' },
    'only recorded inputs',
  );
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
