/** elaborateContent's probes: each answer comes back under the key it was asked with, never by position. */
import t from 'tap';
import { LeanFailure, type LeanRunner } from '../../src/backend/index.ts';
import { elaborateContent } from '../../src/tools/elaborate.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const opts = { ignore_imports: false };

t.test('answers are keyed by what was asked, even for the same text asked twice', async (t) => {
  const a = { name: 'a' };
  const b = { name: 'b' };
  const c = { name: 'c' };
  let n = 0;
  const runner = scriptedRunner((cmd) =>
    cmd.text.startsWith('#check') ? { messages: [msg('info', cmd.origin, `answer ${n++} to ${cmd.text}`)] } : {},
  );
  const r = await elaborateContent('theorem x : True := trivial\n', opts, toolCtx(runner), {
    probes: () => [
      { key: a, text: '#check x' },
      { key: b, text: '#check Nat' },
      { key: c, text: '#check x' },
    ],
  });
  t.equal(r.probes.size, 3);
  t.same(
    [a, b, c].map((k) => r.probes.get(k)?.[0]?.text),
    ['answer 0 to #check x', 'answer 1 to #check Nat', 'answer 2 to #check x'],
  );
  t.equal(r.probes.get({ name: 'a' }), undefined, 'an equal-looking key is another question');
  t.same(
    r.messages.map((m) => m.text),
    [],
    'probe answers never mix with the content messages',
  );
});

t.test('when Lean fails, no probe has an answer (a reader sees "not run")', async (t) => {
  const failing: LeanRunner = {
    async elaborate() {
      throw new LeanFailure('crashed', 'the REPL exited', '');
    },
  };
  const key = {};
  const r = await elaborateContent('theorem x : True := trivial\n', opts, toolCtx(failing), {
    probes: () => [{ key, text: '#check x' }],
  });
  t.ok(r.failure);
  t.equal(r.probes.has(key), false);
});

// Content left inside scopes: one command per scope leaves them (innermost first) after the content's own questions and
// before the probes; it is no probe (nothing under a key), and Lean refusing it is a tool error, not silence.
t.test('the scopes the content leaves open are left once, before the probes', async (t) => {
  const a = { name: 'a' };
  const runner = scriptedRunner((cmd) =>
    cmd.text === 'end B' ? { messages: [msg('error', cmd.origin, "invalid 'end', name mismatch")] } : {},
  );
  const content = 'namespace B\nsection\ntheorem x : True := trivial\n';
  const r = await elaborateContent(content, opts, toolCtx(runner), {
    axiomsOf: (f) => f.decls,
    probes: () => [{ key: a, text: '#check x' }],
  });
  // The axiom question on the lines after the content's last unit (ElabCommand.tail), then the scopes, then the probe.
  const sent = runner.jobs[0]!.commands.map((c) => (c.tail ? `${c.text}\n${c.tail.text}` : c.text));
  t.same(sent.slice(-4), [
    'theorem x : True := trivial\nset_option pp.fullNames true in #print axioms _root_.B.x',
    'end',
    'end B',
    '#check x',
  ]);
  t.same([...r.probes.keys()], [a]);
  t.same(r.toolErrors, ["leaving the scopes the content leaves open: invalid 'end', name mismatch"]);
  const none = scriptedRunner(() => ({}));
  await elaborateContent(content, opts, toolCtx(none), {});
  t.notOk(
    none.jobs[0]!.commands.some((c) => c.text.startsWith('end')),
    'without probes nothing is left: nothing runs after the content',
  );
});
