/** theorem2sorry's general rules, each on the input that used to break it (pure: no Lean). */
// Replaced proofs are the term `sorry`, also for former `by` blocks (AXLE's reprint convention, README "Output layout").
import t from 'tap';
import { lex } from '../../src/syntax/lexer.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { renameInSource } from '../../src/syntax/renaming.ts';
import { t2s } from './sorry-all.ts';

t.test('a replaced proof is separated from what follows it', async (t) => {
  t.equal(t2s('theorem t : True := (h)where h := trivial'), 'theorem t : True := sorry where h := trivial');
  t.equal(t2s('theorem t : True := by exact (h)where h := trivial'), 'theorem t : True := sorry where h := trivial');
  // Already separated: nothing added.
  t.equal(t2s('theorem t : True := h\nwhere h := trivial'), 'theorem t : True := sorry\nwhere h := trivial');
  t.equal(t2s('theorem t : True := (h)'), 'theorem t : True := sorry');
});

t.test('every declaration the Lean parser sees is a declaration, wherever it starts on a line', async (t) => {
  t.equal(
    t2s('theorem t : True := trivial theorem u : True := trivial'),
    'theorem t : True := sorry theorem u : True := sorry',
  );
  t.equal(
    t2s('theorem t : True := by simp lemma u : True := trivial\n'),
    'theorem t : True := sorry lemma u : True := sorry\n',
  );
  const f = parseSource('def f := 1 def g := 2 private theorem u : True := trivial');
  t.same(
    f.decls.map((d) => d.name),
    ['f', 'g', 'u'],
  );
  // Words that only look like it stay inside their command.
  t.same(
    parseSource('class inductive C | a\nderiving instance Repr for Nat\nclass abbrev D := C').commands.map(
      (c) => c.keyword,
    ),
    ['class inductive', 'deriving', 'class abbrev'],
  );
  t.same(parseSource('structure S where\n  x : Nat\nderiving Repr').commands.length, 1);
});

t.test('field projections are never keywords', async (t) => {
  // `set` is let-like, `end`/`where`/`open` are command words: after a closing bracket they are fields.
  t.equal(
    t2s("theorem t (a : Array Nat) : (a.set i v).set i v' = a := by simp\ntheorem u : True := trivial\n"),
    "theorem t (a : Array Nat) : (a.set i v).set i v' = a := sorry\ntheorem u : True := sorry\n",
  );
  t.equal(
    t2s('theorem t : (x).end = x.1.where := rfl\ntheorem u : True := trivial\n'),
    'theorem t : (x).end = x.1.where := sorry\ntheorem u : True := sorry\n',
  );
  const toks = lex('(a).set x.1.open (b).«x y» f .c');
  t.same(
    toks.filter((k) => k.kind === 'field').map((k) => k.end - k.start),
    ['.set'.length, '.open'.length, '.«x y»'.length],
  );
  // `f .c` (a space before the dot) is anonymous-constructor notation, not a projection.
  t.notOk(toks.some((k) => k.kind === 'field' && k.start === '(a).set x.1.open (b).«x y» f '.length));
  // Dot notation on a value still follows a rename of that field's declaration.
  const r = renameInSource('def Foo.size (x : Foo) : Nat := 0\ntheorem t (x : Foo) : (x).size = 0 := rfl\n', {
    'Foo.size': 'Foo.card',
  });
  t.equal(r.output, 'def Foo.card (x : Foo) : Nat := 0\ntheorem t (x : Foo) : (x).card = 0 := rfl\n');
});
