/** prepareContent (src/tools/elaborate.ts): the header the content is elaborated with, and the content the response returns. */
import fc from 'fast-check';
import t from 'tap';
import { blankLinesEnd, prepareContent } from '../../src/tools/elaborate.ts';
import { testEnv } from './runner.ts';

t.test('blankLinesEnd skips exactly what /^(?:[ \\t]*\\n)+/ matches', async (t) => {
  const regex = (s: string) => s.replace(/^(?:[ \t]*\n)+/, '');
  for (const s of ['', '\n', ' \t\n\nx', '  \n  x\n', 'x\n', '\r\n\nx', '\n \t', ' \n\t\n \t'])
    t.equal(s.slice(blankLinesEnd(s, 0)), regex(s), JSON.stringify(s));
  fc.assert(
    fc.property(fc.array(fc.constantFrom(' ', '\t', '\n', '\r', 'x'), { maxLength: 30 }), (a) => {
      const s = a.join('');
      return s.slice(blankLinesEnd(s, 0)) === regex(s);
    }),
    { numRuns: 1000 },
  );
  t.equal(blankLinesEnd('import A\n\n\ndef x', 8), 11, 'from an offset');
});

t.test('ignore_imports: the environment header replaces the content’s, blank lines after it dropped', async (t) => {
  const env = { ...testEnv, imports: 'import Mathlib' };
  t.same(prepareContent('import Foo\n\n \ntheorem t : True := trivial\n', env, true), {
    content: 'import Mathlib\n\ntheorem t : True := trivial\n',
    header: 'import Mathlib',
    warnings: [],
  });
  t.same(
    prepareContent('example : [1] = [1] := rfl\n', env, true).content,
    'import Mathlib\n\nexample : [1] = [1] := rfl\n',
  );
  t.same(prepareContent('example : True := trivial\n', testEnv, true), {
    content: 'example : True := trivial\n',
    header: '',
    warnings: [],
  });
  const kept = prepareContent('import Foo\ndef x := 1\n', env, false);
  t.equal(kept.content, 'import Foo\ndef x := 1\n');
  t.equal(kept.header, 'import Foo');
  t.match(kept.warnings[0], /imports differ/);
});
