/** headerEnd: the header boundary from a prefix scan equals the full parse's, whatever the text. */
import fc from 'fast-check';
import t from 'tap';
import { headerEnd, mayOpenHeader } from '../../src/syntax/header-end.ts';
import { parseSource } from '../../src/syntax/source.ts';

const full = (s: string) => parseSource(s).header.end;

t.test('small and boundary cases', async (t) => {
  for (const s of [
    '',
    'import A',
    'import A\n',
    'module\nimport A\nimport B\n\ntheorem x : True := trivial',
    'prelude\nimport Init\n',
    'def x := 1',
    '/- c -/ import A -- d\ndef y := 2',
    'public import A\nmeta import B\n#eval 1',
  ]) {
    t.equal(headerEnd(s), full(s), JSON.stringify(s));
  }
});

t.test('a text whose first character opens no header word is answered without a scan', async (t) => {
  for (const s of [
    'example : [1] = [1] := rfl\n',
    ' \t\r\n theorem t : True := trivial',
    '#eval 1',
    '@[simp] def x := 1',
    '',
  ])
    t.notOk(mayOpenHeader(s), JSON.stringify(s));
  for (const s of [
    'import A',
    '  module',
    'prelude',
    'public import A',
    'meta import B',
    'private import C',
    '-- c\nimport A',
    '/- c -/ import A',
    'instance : X := y',
    'mutual',
  ])
    t.ok(mayOpenHeader(s), JSON.stringify(s));
});

t.test('import modifiers before a later import, past the first tokens read', async (t) => {
  // parseHeader looks past a run of modifiers for its `import`: the run must be read to its end.
  for (const n of [1, 10, 20, 700])
    for (const s of [
      `import A\n${'public '.repeat(n)}import B\ndef x := 1`,
      `import A\n${'public '.repeat(n)}def x := 1`,
    ])
      t.equal(headerEnd(s), full(s), `${n} modifiers: ${s.slice(-20)}`);
});

t.test('headers and comments that cross the first prefix', async (t) => {
  const many = Array.from({ length: 600 }, (_, i) => `import Mathlib.Module${i}`).join('\n');
  for (const s of [
    `${many}\n\ntheorem t : True := trivial\n`,
    `${many}`,
    `import A\n/- ${'x'.repeat(5000)} -/\nimport B\ndef z := 1`,
    `import A\n/- unterminated ${'x'.repeat(9000)}`,
    `${'-- comment line\n'.repeat(400)}import A\ndef q := 0`,
    `import A\n${' '.repeat(4090)}import B\nexample : 1 = 1 := rfl`,
  ])
    t.equal(headerEnd(s), full(s), `${s.length} chars`);
});

t.test('property: equals the full parse on generated files', async (t) => {
  const piece = fc.constantFrom(
    'import A.B',
    'import C',
    'public import D',
    'module',
    'prelude',
    '-- c',
    '/- b -/',
    '/- open',
    '-/',
    'def x := 1',
    'theorem t : True := by\n  trivial',
    '"str',
    'import',
    ' ',
    '\n',
    'x'.repeat(1500),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), (ps) => {
      const s = ps.join('\n');
      return headerEnd(s) === full(s);
    }),
    { numRuns: 400 },
  );
  t.pass('400 generated files');
});
