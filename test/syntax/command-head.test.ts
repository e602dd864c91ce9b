/** How one command's text begins (src/syntax/command-head.ts): what the backend's heartbeat budgets ask. */
import t from 'tap';
import { commandHead, endsWithEnd, setOptionOf } from '../../src/syntax/command-head.ts';

const head = (text: string) => {
  const h = commandHead(text);
  return [h.kind, h.keyword, h.scoped];
};

t.test('the keyword after comments, doc comment, attributes and modifiers', async (t) => {
  t.same(head('theorem foo : True := trivial'), ['declaration', 'theorem', false]);
  t.same(head('-- note\n/- a /- nested -/ b -/\n/-- doc -/\n@[simp] private lemma x : 1 = 1 := rfl'), [
    'declaration',
    'lemma',
    false,
  ]);
  t.same(head('class inductive C'), ['declaration', 'class inductive', false]);
  t.same(head('#print axioms foo'), ['hash', '#print', false]);
  t.same(head('#eval! 1'), ['hash', '#eval!', false]);
  t.same(head('noncomputable section'), ['section', 'noncomputable section', false]);
  t.same(head('end Foo'), ['end', 'end', false]);
  t.same(head('set_option maxHeartbeats 5 in\ntheorem x : True := trivial'), ['set_option', 'set_option', false]);
  t.same(head('-- only a comment'), ['other', '', false]);
  t.equal(commandHead('  -- c\ntheorem x').start, 7);
  t.equal(commandHead('').start, 0);
});

t.test('a local or scoped modifier or attribute ties the command to its scope', async (t) => {
  t.same(head('@[local simp] theorem x : True := trivial'), ['declaration', 'theorem', true]);
  t.same(head('@[scoped instance] def d := 1'), ['declaration', 'def', true]);
  t.same(head('local instance : Inhabited Nat := ⟨0⟩'), ['declaration', 'instance', true]);
  t.same(head('@[simp] theorem local_x : True := trivial'), ['declaration', 'theorem', false], 'a name is no modifier');
  t.same(head('/-- local notes -/ theorem x : True := trivial'), ['declaration', 'theorem', false], 'nor a comment');
});

t.test('the head is read from a prefix that grows past long doc comments and attributes', async (t) => {
  const doc = `/-- ${'long doc '.repeat(400)}-/\n`;
  t.same(head(`${doc}theorem x : True := trivial`), ['declaration', 'theorem', false]);
  t.same(head(`@[${'simp, '.repeat(500)}local simp]\ndef d := 1`), ['declaration', 'def', true]);
  // The first prefix (1,024 units) ends inside `inductive`: its last token is cut (`induc`), so the answer waits.
  const pad = `-- ${'x'.repeat(1010)}\n`;
  t.equal(`${pad}class `.length, 1020);
  t.same(head(`${pad}class inductive C`), ['declaration', 'class inductive', false]);
  t.same(head(`${'-- c\n'.repeat(300)}open Nat`), ['open', 'open', false]);
  const proof = `theorem x : True := by\n${'  trivial\n'.repeat(100_000)}`;
  t.same(head(proof), ['declaration', 'theorem', false], 'a long proof');
});

t.test('a standalone set_option, and a block closed by its own end', async (t) => {
  t.same(setOptionOf('set_option maxHeartbeats 400000 -- why'), { name: 'maxHeartbeats', value: '400000' });
  t.same(setOptionOf('/- c -/ set_option maxHeartbeats 0'), { name: 'maxHeartbeats', value: '0' });
  t.equal(setOptionOf('set_option maxHeartbeats 400000 in theorem x : True := trivial'), undefined);
  t.equal(setOptionOf('theorem x : True := trivial'), undefined);
  t.ok(endsWithEnd('namespace N\ntheorem t : True := trivial\nend N\n'));
  t.ok(endsWithEnd('section\ntheorem t : True := trivial\nend -- done'));
  t.notOk(endsWithEnd('namespace N'), 'one line');
  t.notOk(endsWithEnd('section\ntheorem t : True := trivial'));
  t.notOk(endsWithEnd('section\ntheorem t : True := trivial\n-- end'), 'an `end` in a comment');
  t.notOk(endsWithEnd('section\ntheorem t : True := trivial\n  (x).end'), 'a field named end');
});
