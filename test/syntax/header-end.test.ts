/** headerEnd: the header boundary from a prefix scan equals the full parse's, whatever the text. */
import fc from 'fast-check';
import t from 'tap';
import { headerEnd } from '../../src/syntax/header-end.ts';
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
