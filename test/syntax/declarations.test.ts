/** Tricky declaration shapes (modifiers, binders, bodies, trailing clauses), one test each. */
import t from 'tap';
import { parseSource, type SourceFile } from '../../src/syntax/source.ts';

const slice = (f: SourceFile, s: { start: number; end: number } | undefined) =>
  s ? f.text.slice(s.start, s.end) : undefined;
const kinds = (src: string) => parseSource(src).commands.map((c) => `${c.kind}:${c.keyword}`);
const decl = (src: string, i = 0) => {
  const f = parseSource(src);
  const d = f.decls[i]!;
  return { f, d, sig: slice(f, d.signatureSpan), body: slice(f, d.bodySpan), header: slice(f, d.headerSpan) };
};

t.test('header: module, imports with modifiers; a late import is its own command', async (t) => {
  const f = parseSource(
    'module\n\npublic import Mathlib.Tactic\nimport all Foo\nmeta import Bar\n\ntheorem x : True := trivial\nimport Late\n',
  );
  t.equal(f.header.module, true);
  t.same(
    f.header.imports.map((i) => [i.module, i.modifiers]),
    [
      ['Mathlib.Tactic', ['public']],
      ['Foo', ['all']],
      ['Bar', ['meta']],
    ],
  );
  t.same(
    f.commands.map((c) => c.kind),
    ['declaration', 'import'],
  );
});

t.test('doc comments and attributes glue to the declaration; #guard_msgs keeps its doc comment', async (t) => {
  const src =
    '/-- doc -/\n@[simp, to_additive "x ] y"]\nprivate noncomputable def f : Nat := 1\n\n/-- info: 2 -/\n#guard_msgs in\n#eval 1 + 1\n';
  const f = parseSource(src);
  t.same(
    f.commands.map((c) => `${c.kind}:${c.keyword}`),
    ['declaration:def', 'hash:#eval'],
  );
  t.equal(f.commands[1]!.prefixes[0]!.keyword, '#guard_msgs');
  t.ok(f.text.slice(f.commands[1]!.start).startsWith('/-- info: 2 -/'));
  const d = f.decls[0]!;
  t.equal(slice(f, d.modifiers.docComment), '/-- doc -/');
  t.same(
    d.modifiers.attributes.map((a) => slice(f, a)),
    ['@[simp, to_additive "x ] y"]'],
  );
  t.equal(d.modifiers.visibility, 'private');
  t.same(d.modifiers.words, ['private', 'noncomputable']);
});

t.test('structure fields and constructors with doc comments stay inside their declaration', async (t) => {
  const src =
    'structure P where\n  /-- the x -/\n  x : Nat\n  /-- the y -/\n  y : Nat\n\ninductive T\n  /-- a -/\n  | a\n  /-- b -/\n  | b : T\n  deriving Repr\n';
  const f = parseSource(src);
  t.same(
    f.decls.map((d) => [d.kind, d.name, d.bodyForm]),
    [
      ['structure', 'P', 'where'],
      ['inductive', 'T', 'equations'],
    ],
  );
  t.same(
    f.decls[1]!.trailing.map((x) => x.keyword),
    ['deriving'],
  );
});

t.test('strings and comments that look like commands do not split', async (t) => {
  t.same(kinds('def s := "theorem x : True := trivial"\n/- theorem y -/\ndef t := s\n'), [
    'declaration:def',
    'declaration:def',
  ]);
});

t.test('open … in / set_option … in prefixes; the same words inside proofs do not split', async (t) => {
  const src =
    'open Real in\nset_option maxHeartbeats 400000 in\ntheorem x : True := by\n  open Classical in\n  set_option simprocs false in\n  trivial\n';
  const f = parseSource(src);
  t.equal(f.commands.length, 1);
  t.same(
    f.commands[0]!.prefixes.map((p) => p.keyword),
    ['open', 'set_option'],
  );
  t.same(f.decls[0]!.localOpens, ['Real']);
  t.same(kinds('open Nat\nopen scoped BigOperators\n\ntheorem x : True := trivial\n'), [
    'open:open',
    'open:open',
    'declaration:theorem',
  ]);
});

t.test('namespaces, sections, _root_, protected/private, dotted names and `end` of several components', async (t) => {
  const src =
    'namespace A.B\ntheorem foo.bar : True := trivial\nprotected def p := 1\ntheorem _root_.top : True := trivial\nend B\nsection S\ndef inA := 2\nend S\nend A\ndef atRoot := 3\n';
  const f = parseSource(src);
  t.same(
    f.decls.map((d) => d.fullName),
    ['A.B.foo.bar', 'A.B.p', 'top', 'A.inA', 'atRoot'],
  );
  t.same(
    f.decls.map((d) => d.namespace),
    ['A.B', 'A.B', 'A.B', 'A', ''],
  );
});

t.test('noncomputable section and mutual blocks', async (t) => {
  const src =
    'noncomputable section\nmutual\ndef even : Nat → Bool\n  | 0 => true\n  | n+1 => odd n\ndef odd : Nat → Bool\n  | 0 => false\n  | n+1 => even n\nend\nend\n';
  const f = parseSource(src);
  t.same(
    f.commands.map((c) => `${c.kind}:${c.keyword}`),
    ['section:noncomputable section', 'mutual:mutual', 'declaration:def', 'declaration:def', 'end:end', 'end:end'],
  );
  t.same(
    f.decls.map((d) => [d.name, d.bodyForm, d.mutualGroup]),
    [
      ['even', 'equations', 1],
      ['odd', 'equations', 1],
    ],
  );
});

t.test('termination_by, decreasing_by, where at column 0 continue the declaration', async (t) => {
  const src =
    'def f : Nat → Nat\n| 0 => 0\n| n+1 => f n\ntermination_by n => n\ndecreasing_by omega\n\ndef g (n : Nat) : Nat := go n\nwhere\n  go : Nat → Nat := id\n';
  const f = parseSource(src);
  t.equal(f.decls.length, 2);
  t.same(
    f.decls[0]!.trailing.map((x) => x.keyword),
    ['termination_by', 'decreasing_by'],
  );
  t.equal(slice(f, f.decls[0]!.bodySpan), '| 0 => 0\n| n+1 => f n');
  t.same(
    f.decls[1]!.trailing.map((x) => x.keyword),
    ['where'],
  );
  t.equal(slice(f, f.decls[1]!.bodySpan), 'go n');
});

t.test(
  '`:=` inside the statement: let/have in types, binder defaults, named arguments, structure instances',
  async (t) => {
    t.equal(decl('theorem t : let x := 1; x = 1 := rfl').body, 'rfl');
    t.equal(
      decl('theorem t (h : P := by simp) (n : Nat := 3) : f (x := 2) = { a := 1 } := by\n  rfl').body,
      'by\n  rfl',
    );
    t.equal(decl('instance (priority := 100) foo : Inhabited Nat := ⟨0⟩').d.name, 'foo');
    t.equal(decl('instance : Inhabited Nat where\n  default := 0').d.bodyForm, 'where');
    t.equal(decl('instance : Inhabited Nat where\n  default := 0').d.name, undefined);
  },
);

t.test('a match in the type is not an equation body; |x| absolute values are not equations', async (t) => {
  const m = decl('def f (n : Nat) : match n with | 0 => Nat | _ => Bool := by\n  cases n <;> simp');
  t.equal(m.body, 'by\n  cases n <;> simp');
  const a = decl('theorem abs_ex (x : ℝ) :\n    |x| ≥ 0 := by\n  positivity');
  t.equal(a.d.bodyForm, 'tactic');
  t.equal(a.body, 'by\n  positivity');
  t.equal(a.sig, '(x : ℝ) :\n    |x| ≥ 0');
  const e = decl('theorem t : ∀ n : Nat, n = n\n  | 0 => rfl\n  | n+1 => rfl');
  t.equal(e.d.bodyForm, 'equations');
});

t.test('tactic blocks in column 0 and declarations indented inside namespaces', async (t) => {
  const f = parseSource(
    'theorem t : True := by\nsimp\nexact trivial\n\nnamespace N\n  theorem u : True := by\n    trivial\n  theorem v : True := trivial\nend N\n',
  );
  t.same(
    f.decls.map((d) => d.fullName),
    ['t', 'N.u', 'N.v'],
  );
  t.equal(slice(f, f.decls[0]!.bodySpan), 'by\nsimp\nexact trivial');
});

t.test('example, anonymous instance, axiom, opaque, abbrev, class inductive, structure extends', async (t) => {
  const f = parseSource(
    'example : True := trivial\ninstance : ToString Nat := ⟨fun _ => ""⟩\naxiom ax : False\nopaque o : Nat\nabbrev A := Nat\nclass inductive C\n  | c\nstructure S extends T where\n  x : Nat\nlemma l : True := trivial\n',
  );
  t.same(
    f.decls.map((d) => [d.kind, d.keyword, d.name ?? null, d.bodyForm]),
    [
      ['example', 'example', null, 'term'],
      ['instance', 'instance', null, 'term'],
      ['axiom', 'axiom', 'ax', 'none'],
      ['opaque', 'opaque', 'o', 'none'],
      ['abbrev', 'abbrev', 'A', 'term'],
      ['class inductive', 'class inductive', 'C', 'equations'],
      ['structure', 'structure', 'S', 'where'],
      ['theorem', 'lemma', 'l', 'term'],
    ],
  );
});

t.test('deriving instance is a separate command; deriving after a structure is a clause', async (t) => {
  t.same(kinds('structure S where\n  x : Nat\nderiving Repr\n\nderiving instance BEq for S\n'), [
    'declaration:structure',
    'other:deriving',
  ]);
});

t.test('unknown commands become opaque spans in place', async (t) => {
  const src = 'problem p1 : 1 = 1 := by\n  rfl\n\nsnip begin\nlemma aux : True := trivial\nsnip end\n#eval 3\n';
  t.same(kinds(src), ['other:problem', 'other:snip', 'declaration:lemma', 'other:snip', 'hash:#eval']);
});

t.test('a later line starting with an identifier in column 0 after a complete term is a new command', async (t) => {
  t.same(kinds('def x : Nat := f a\nmy_command foo\n'), ['declaration:def', 'other:my_command']);
  t.same(kinds('def x : Nat :=\nf a\n'), ['declaration:def'], 'but not right after :=');
});

t.test('universe parameters, headers and signatures', async (t) => {
  const { d, f, header } = decl('/-- d -/\ntheorem foo.{u} {α : Sort u} (a : α) : a = a := rfl');
  t.equal(d.name, 'foo');
  t.equal(slice(f, d.signatureSpan), '{α : Sort u} (a : α) : a = a');
  t.equal(header, '/-- d -/\ntheorem foo.{u} {α : Sort u} (a : α) : a = a');
});

t.test('a notation whose pattern wraps to column 0 is one command', async (t) => {
  const src = 'notation:1000\n  /- a comment -/\nR " ∙ " x => span R (singleton x)\n\ntheorem t : True := trivial\n';
  t.same(kinds(src), ['notation:notation', 'declaration:theorem']);
});
