/**
 * A text's comment-free form (src/syntax/comment-free.ts): what it drops, what it keeps, its line maps, and the
 * texts that have none.
 */
import t from 'tap';
import { commentFree, commentFreeForm, type CommentFree } from '../../src/syntax/comment-free.ts';

const form = (s: string): CommentFree => {
  const f = commentFree(s);
  if (!f) throw new Error(`no form for ${JSON.stringify(s)}`);
  return f;
};

t.test('comment lines, ending comments, blank lines and ending blanks go; tokens keep their columns', async (t) => {
  const plain = 'theorem a : b := by\n  simp\n  ring\n';
  const noisy = 'theorem a : b := by  \n  -- first (sample 7)\n\n  simp -- why\n  /- more\n  lines -/\n  ring\n';
  t.equal(form(noisy).text, plain);
  t.equal(form(plain).text, plain);
  t.notOk(form(plain).changed, 'a text without any of those is its own form');
  t.ok(form(noisy).changed);
  t.same([...form(noisy).lineOf], [1, 0, 0, 2, 0, 0, 3, 4], 'each line of the text: its line in the form, 0 dropped');
  t.same([...form(noisy).from], [1, 4, 7, 8], 'each line of the form: its line in the text');
  t.same([...form(noisy).keep], [19, 0, 0, 6, 0, 0, 6, 0], 'the code points of each line the form keeps');
  t.same(form(noisy).removed, ['-- first (sample 7)', '-- why', '/- more\n  lines -/']);
});

t.test('leading comment lines go; whatever follows the last token stays', async (t) => {
  const f = form('-- lead\n/- b -/\n  theorem x : 1 = 1 := rfl -- end\n-- after\n');
  t.equal(f.text, '  theorem x : 1 = 1 := rfl -- end\n-- after\n');
  t.same([...f.lineOf], [0, 0, 1, 2, 3]);
});

t.test('a comment with a token after it on its last line stays, and so does its line', async (t) => {
  t.equal(form('a /- x\n -/ b\n  c').text, 'a /- x\n -/ b\n  c');
  t.equal(form('a\n  /- x -/ b').text, 'a\n  /- x -/ b', 'removing it would move `b`');
  t.equal(form('a /- x -/ b').text, 'a /- x -/ b', 'on one line');
});

t.test('strings, characters and doc comments are tokens: kept whole, comment markers in them too', async (t) => {
  const s = 'def s := "x\n\n  -- y\n" -- z\n\n  /-- doc\n\n -/\n  theorem t : 1 = 1 := by\n    exact (rfl) -- w\n';
  t.equal(
    form(s).text,
    'def s := "x\n\n  -- y\n"\n  /-- doc\n\n -/\n  theorem t : 1 = 1 := by\n    exact (rfl) -- w\n',
  );
  t.equal(form('def c := \'-\'\n-- x\n  def r := r#"a -- b"#').text, 'def c := \'-\'\n  def r := r#"a -- b"#');
  t.equal(form('/-! mod -/\n-- c\nx').text, '/-! mod -/\nx');
});

t.test('columns count code points; lines keep their prefix', async (t) => {
  const f = form('theorem 𝔸x : 1 = 1 := by -- 𝔸\n  rfl');
  t.equal(f.text, 'theorem 𝔸x : 1 = 1 := by\n  rfl');
  t.equal(f.keep[0], 24, 'one code point for 𝔸 (two UTF-16 units)');
});

t.test(
  'no form for a text whose elaboration may read its own source, or that Lean reads apart from blank space',
  async (t) => {
    const none = [
      '#eval 1',
      'example : True := by\n  #check Nat\n  trivial',
      'elab "x" : tactic => pure ()',
      'macro "x" : tactic => `(tactic| rfl)',
      'syntax "x" : term',
      'run_cmd pure ()',
      'example : True := by run_tac pure ()',
      'initialize pure ()',
      'unsafe def f := 1',
      'attribute [simp] foo',
      '@[tactic foo] def f := 1',
      '@[simp, aesop safe] theorem x : 1 = 1 := rfl',
      '@[simp ←] theorem x : 1 = 1 := rfl',
      'set_option linter.unusedVariables true in\ntheorem x : 1 = 1 := rfl',
      'set_option trace.Meta.synthInstance true in\ntheorem x : 1 = 1 := rfl',
      'set_option pp.sorrySource true',
      'theorem x : 1 = 1 := by\n\trfl',
      'theorem x : 1 = 1 := by\r\n  rfl',
      'theorem x : 1 = 1 := by\f  rfl',
      'theorem x : 1 = 1 := by /- open',
      'def s := "open',
    ];
    for (const s of none) t.equal(commentFree(s), undefined, JSON.stringify(s));
    const some = [
      'set_option maxHeartbeats 400000 in\ntheorem x : 1 = 1 := rfl',
      'set_option synthInstance.maxHeartbeats 1000 in\ntheorem x : 1 = 1 := rfl',
      '@[simp] theorem x : 1 = 1 := rfl',
      '@[local simp 100, reducible] def x := 1',
      'def a := #[1, 2]',
      'theorem macros_free : 1 = 1 := rfl',
    ];
    for (const s of some) t.ok(commentFree(s), JSON.stringify(s));
  },
);

t.test('two texts differing only in dropped comments and blanks share a form', async (t) => {
  const a = 'theorem rl_1 (x : ℝ) : x = x := by\n  nlinarith [sq_nonneg x] -- AM-GM\n  linarith\n';
  const b =
    'theorem rl_1 (x : ℝ) : x = x := by\n  -- close with nlinarith (sample 5)\n  nlinarith [sq_nonneg x]\n  linarith\n';
  t.equal(form(a).text, form(b).text);
  t.not(
    form(a).text,
    form('theorem rl_1 (x : ℝ) : x = x := by\n  nlinarith [sq_nonneg x]\n linarith\n').text,
    'indentation is kept',
  );
  t.not(
    form(a).text,
    form('theorem rl_1 (x : ℝ) : x = x := by\n  nlinarith [sq_nonneg x] linarith\n').text,
    'line breaks are kept',
  );
});

t.test(
  'each allowed option and attribute has a form; whatever stands between set_option and its name is read',
  async (t) => {
    for (const o of [
      'maxHeartbeats',
      'maxRecDepth',
      'synthInstance.maxHeartbeats',
      'synthInstance.maxSize',
      'autoImplicit',
      'relaxedAutoImplicit',
    ])
      t.ok(commentFree(`set_option ${o} 1 in\ntheorem x : 1 = 1 := rfl`), o);
    for (const a of ['simp', 'reducible', 'irreducible', 'instance', 'local simp', 'scoped simp', 'inline'])
      t.ok(commentFree(`@[${a}] def x := 1`), a);
    const none = [
      'set_option\n  linter.all true in\ntheorem x : 1 = 1 := rfl',
      'set_option -- c\n  linter.all true in\ntheorem x : 1 = 1 := rfl',
      'set_option /- c -/ linter.all true in\ntheorem x : 1 = 1 := rfl',
      'set_option /-- c -/ linter.all true in\ntheorem x : 1 = 1 := rfl',
      'set_option /-! c -/ linter.all true in\ntheorem x : 1 = 1 := rfl',
      'theorem x : 1 = 1 := rfl\nset_option',
      '@[simp',
      '@[simp "x"] theorem x : 1 = 1 := rfl',
      'theorem x : 1 = 1 := by\v  rfl',
    ];
    for (const s of none) t.equal(commentFree(s), undefined, JSON.stringify(s));
    t.ok(
      commentFree('def f (set_option : Nat) := set_option + foo'),
      'a token after `set_option` that is no name ends it',
    );
  },
);

t.test('the removed comments are those inside the cuts, from the first character', async (t) => {
  t.same(form('-- lead\nx -- end').removed, ['-- lead'], 'after the last token: kept, not removed');
  t.same(
    form('x-- c\n  y /- k -/ z\n  -- d\n  w').removed,
    ['-- c', '-- d'],
    'a comment with a token after it is kept',
  );
  t.equal(form('x-- c\n  y').text, 'x\n  y');
});

t.test('blank lines at the start go; a text of one line is its own form', async (t) => {
  t.equal(form('\n  x').text, '  x');
  t.same([...form('\n\n  x').lineOf], [0, 0, 1]);
  t.equal(form('\n\n  x').text, '  x');
  t.notOk(form('   b').changed);
  t.notOk(form('a /- c -/ b').changed);
  t.notOk(form('a\n  b').changed, 'a line break alone is nothing to cut');
});

t.test('columns count a surrogate pair once, at either end of the low surrogates', async (t) => {
  t.equal(form('𐀀 x -- c\n  y').keep[0], 3, 'U+10000 (low surrogate DC00)');
  t.equal(form('𐏿 x -- c\n  y').keep[0], 3, 'U+103FF (low surrogate DFFF)');
  t.equal(form('！ x -- c\n  y').keep[0], 3, 'U+FF01, past the surrogates');
});

t.test('a text with nothing a form changes is its own form without being read; any other is read whole', async (t) => {
  const own = ['theorem x : 1 = 1 := by\n  rfl', '#eval 1\n  + 1', 'a - b / c', '𝔸 x\n  y'];
  for (const s of own) {
    const f = commentFreeForm(s)!;
    t.same([f.text, f.changed, f.removed], [s, false, []], JSON.stringify(s));
    t.same([...f.keep], [...form(s.replace('#eval', 'evals')).keep], 'the same line lengths as a read form');
    t.same([...f.lineOf], [...f.from]);
  }
  const read = [
    'a -- c\n  b',
    'a /- c -/\n  b',
    'a  \n  b',
    'a\n\n  b',
    '\n  b',
    'a\t b',
    'a\r\n b',
    'a\f b',
    'a\v b',
    '#eval 1 -- c\n  + 1',
  ];
  for (const s of read) t.same(commentFreeForm(s), commentFree(s), JSON.stringify(s));
});
