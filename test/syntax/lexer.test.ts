import fc from 'fast-check';
import t from 'tap';
import { lex, isTrivia, partialScan, scan, type TokenKind } from '../../src/syntax/lexer.ts';
import { LineIndex, utf8Length } from '../../src/syntax/positions.ts';
import { parseSource, printSource } from '../../src/syntax/source.ts';
import { CORPUS, corpusFiles, fixtureFiles, read } from './corpus.ts';

/** Significant tokens as [kind, text]. */
const toks = (src: string): [TokenKind, string][] =>
  lex(src)
    .filter((x) => !isTrivia(x.kind))
    .map((x) => [x.kind, src.slice(x.start, x.end)]);

const lossless = (src: string) =>
  lex(src)
    .map((x) => src.slice(x.start, x.end))
    .join('') === src;

t.test('comments: nested, doc, module doc, line; quotes inside comments and dashes inside strings', async (t) => {
  t.same(toks('/- a /- b -/ c -/ x'), [['ident', 'x']]);
  t.same(toks('/-- doc /- nested -/ still -/ def'), [
    ['doc-comment', '/-- doc /- nested -/ still -/'],
    ['ident', 'def'],
  ]);
  t.same(toks('/-! module -/'), [['mod-doc', '/-! module -/']]);
  t.same(toks('/- "-/ x'), [['ident', 'x']], 'a quote in a comment means nothing: the comment ends at the first -/');
  t.same(toks('/- "-/" x'), [['error', '" x']], 'so a quote after it opens an (unterminated) string');
  t.same(toks('"--not a comment" x'), [
    ['string', '"--not a comment"'],
    ['ident', 'x'],
  ]);
  t.same(toks('a--b\nc'), [
    ['ident', 'a'],
    ['ident', 'c'],
  ]);
  t.same(
    lex('/- unterminated').map((x) => x.kind),
    ['error'],
  );
});

t.test('strings: escapes, interpolation with nested strings, raw strings, chars vs primes', async (t) => {
  t.same(toks('"a\\"b" c'), [
    ['string', '"a\\"b"'],
    ['ident', 'c'],
  ]);
  t.same(toks('s!"a {f "b" {x}} c" d'), [
    ['ident', 's!'],
    ['string', 's!"a {f "b" {x}} c"'.slice(2)],
    ['ident', 'd'],
  ]);
  t.same(toks('m!"{x}" "}"'), [
    ['ident', 'm!'],
    ['string', '"{x}"'],
    ['string', '"}"'],
  ]);
  t.same(toks('throwError "bad {repr "x"}"'), [
    ['ident', 'throwError'],
    ['string', '"bad {repr "x"}"'],
  ]);
  t.same(
    toks('"{" x'),
    [
      ['string', '"{"'],
      ['ident', 'x'],
    ],
    'a plain string with a brace is not interpolated',
  );
  t.same(toks('r#"a " -- b"# c'), [
    ['raw-string', 'r#"a " -- b"#'],
    ['ident', 'c'],
  ]);
  t.same(toks('r"x" foor"y"'), [
    ['raw-string', 'r"x"'],
    ['ident', 'foor'],
    ['string', '"y"'],
  ]);
  t.same(toks("'a' '\\n' '\\x41' '∀'"), [
    ['char', "'a'"],
    ['char', "'\\n'"],
    ['char', "'\\x41'"],
    ['char', "'∀'"],
  ]);
  t.same(toks("f' h'' x"), [
    ['ident', "f'"],
    ['ident', "h''"],
    ['ident', 'x'],
  ]);
  t.same(toks("f '' s"), [
    ['ident', 'f'],
    ['symbol', "''"],
    ['ident', 's'],
  ]);
  t.same(toks("f ⁻¹' s"), [
    ['ident', 'f'],
    ['symbol', '⁻'],
    ['symbol', '¹'],
    ['symbol', "'"],
    ['ident', 's'],
  ]);
});

t.test('identifiers: dots, «», subscripts, Greek, letterlike, astral, ?, !, _root_', async (t) => {
  t.same(toks('Nat.succ_le_iff'), [['ident', 'Nat.succ_le_iff']]);
  t.same(toks('x.«y z».w'), [['ident', 'x.«y z».w']]);
  t.same(toks('x₁ hₙ α ℕ 𝒜 get! foo? _root_.a'), [
    ['ident', 'x₁'],
    ['ident', 'hₙ'],
    ['ident', 'α'],
    ['ident', 'ℕ'],
    ['ident', '𝒜'],
    ['ident', 'get!'],
    ['ident', 'foo?'],
    ['ident', '_root_.a'],
  ]);
  t.same(
    toks('λ x'),
    [
      ['symbol', 'λ'],
      ['ident', 'x'],
    ],
    'λ is not an identifier character',
  );
  t.same(toks('Foo.{u}'), [
    ['ident', 'Foo'],
    ['symbol', '.{'],
    ['ident', 'u'],
    ['symbol', '}'],
  ]);
  t.same(toks('.inl'), [
    ['symbol', '.'],
    ['ident', 'inl'],
  ]);
});

t.test('numbers and field indices', async (t) => {
  t.same(toks('h.1.2'), [
    ['ident', 'h'],
    ['field-idx', '.1'],
    ['field-idx', '.2'],
  ]);
  t.same(toks('1.5 1e10 1.5e-3 0x1F 0b101 0o17 1_000'), [
    ['number', '1.5'],
    ['number', '1e10'],
    ['number', '1.5e-3'],
    ['number', '0x1F'],
    ['number', '0b101'],
    ['number', '0o17'],
    ['number', '1_000'],
  ]);
  t.same(toks('(f x).1'), [
    ['symbol', '('],
    ['ident', 'f'],
    ['ident', 'x'],
    ['symbol', ')'],
    ['field-idx', '.1'],
  ]);
  t.same(
    toks('x .1'),
    [
      ['ident', 'x'],
      ['symbol', '.'],
      ['number', '1'],
    ],
    'with a space it is not a projection',
  );
});

t.test('symbols and quotations', async (t) => {
  t.same(toks('a := b <;> c'), [
    ['ident', 'a'],
    ['symbol', ':='],
    ['ident', 'b'],
    ['symbol', '<;>'],
    ['ident', 'c'],
  ]);
  t.same(
    toks('@[simp] `foo ``bar `(tactic| simp)').map((x) => x[1]),
    ['@[', 'simp', ']', '`foo', '``bar', '`(', 'tactic', '|', 'simp', ')'],
  );
});

t.test('positions: Lean columns count code points; UTF-8 lengths', async (t) => {
  const src = 'a\n𝒜 x\n  y';
  const idx = new LineIndex(src);
  const x = src.indexOf('x');
  t.same(idx.toLean(x), { line: 2, column: 2 }, '𝒜 is 2 UTF-16 units but 1 column');
  t.equal(idx.fromLean({ line: 2, column: 2 }), x);
  t.same(idx.toLean(src.indexOf('y')), { line: 3, column: 2 });
  t.equal(idx.fromLean({ line: 1, column: 99 }), 1, 'clamped to the line end');
  t.equal(utf8Length('a𝒜é'), 1 + 4 + 2);
});

t.test('property: lexing and parsing are lossless and total on arbitrary text', async (t) => {
  const alphabet = fc.constantFrom(
    ...'ab x:=()[]{}⟨⟩"\'`«»-/!#@.|·\n  \r\t0123456789_𝒜ℕ₁λ∀theorem by sorry have end namespace open in where'.split(
      '',
    ),
  );
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 200 }).map((a) => a.join('')),
      (src) => {
        const file = parseSource(src);
        return lossless(src) && printSource(file) === src;
      },
    ),
    { numRuns: 2000 },
  );
  t.pass('2000 random inputs');
});

t.test(
  'property: a partial scan reads the first tokens of the whole scan (without layout), and on to all of them',
  async (t) => {
    const alphabet = fc.constantFrom(...'ab x:=()"{}!-/\n  .1«»theorem by'.split(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 120 }).map((a) => a.join('')),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
        (src, counts) => {
          const whole = scan(src).sig;
          const lexed = partialScan(src);
          for (const count of [...counts, Infinity]) {
            const ended = lexed.readTo(count);
            const { sig } = lexed;
            const n = sig.length;
            if (n !== sig.text.length || (ended ? n !== whole.length : n < Math.min(count, whole.length))) return false;
            for (const key of ['text', 'kind', 'start', 'end'] as const)
              if (JSON.stringify(sig[key]) !== JSON.stringify(whole[key].slice(0, n))) return false;
          }
          return true;
        },
      ),
      { numRuns: 1000 },
    );
    t.pass('1000 random inputs');
  },
);

t.test('property: mutated real files stay lossless (deletions, insertions, splices)', async (t) => {
  // The external corpus when present, else this project's own fixtures.
  const samples = CORPUS
    ? corpusFiles('compfiles').slice(0, 40).map(read).concat(corpusFiles('batteries').slice(0, 40).map(read))
    : fixtureFiles().map(read);
  t.ok(samples.length >= 5, `${samples.length} sample files (${CORPUS ? 'corpus' : 'test/fixtures/lean'})`);
  const fragments = [
    '/-',
    '-/',
    '"',
    '«',
    '(',
    ')',
    ':=',
    'by',
    '\n',
    'theorem x : T := ',
    'end',
    'r#"',
    "'",
    '`(',
    '/--',
    '|',
  ];
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: samples.length - 1 }),
      fc.nat(),
      fc.nat(),
      fc.constantFrom(...fragments),
      (i, a, b, frag) => {
        const src = samples[i]!;
        const p = a % (src.length + 1);
        const q = Math.min(src.length, p + (b % 200));
        const mutated = src.slice(0, p) + frag + src.slice(q);
        const file = parseSource(mutated);
        return lossless(mutated) && printSource(file) === mutated;
      },
    ),
    { numRuns: 500 },
  );
  t.pass('500 mutated files');
});
