/**
 * The commands that reach Lean as one input (src/tools/elaborate.ts `unitEnd`, `elaborationUnits`), and
 * which headers are a module's (`isModule`).
 */
import t from 'tap';
import { canonicalHeader } from '../../src/backend/index.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { elaborationUnits, isModule, unitEnd } from '../../src/tools/elaboration-plan.ts';

const keywords = (text: string) => elaborationUnits(parseSource(text)).map((u) => u.map((c) => c.keyword));

t.test('mutual … end, a command ending in `in`, and the rest one command each', async (t) => {
  t.same(keywords('def a := 1\n\nmutual\ndef b := 2\ndef c := 3\nend\n\ntheorem d : True := trivial\n'), [
    ['def'],
    ['mutual', 'def', 'def', 'end'],
    ['theorem'],
  ]);
  t.same(keywords('mutual\ndef b := 2\n'), [['mutual', 'def']], 'an unclosed mutual runs to the end');
  t.same(keywords('def a := 1\nvariable (x : Nat) in\n'), [['def'], ['variable']], 'a dangling prefix');
  t.same(keywords(''), []);
});

t.test('unitEnd: where the unit starting at a command ends', async (t) => {
  const file = parseSource('def a := 1\nmutual\ndef b := 2\nend\ndef c := 3\n');
  t.same(
    [0, 1, 2, 3, 4].map((i) => unitEnd(file, i)),
    [1, 4, 3, 4, 5],
    'from inside a mutual block a unit ends at its first command (as the block was left at its start)',
  );
});

t.test('isModule: a line of the canonical header is `module`', async (t) => {
  const headers = [
    'module',
    'module\nimport Mathlib',
    '-- module\nmodule\n\nimport Mathlib',
    'prelude\nimport Init',
    'import Mathlib',
    'import modules',
    'import Foo.module',
    'import module',
    '/- module -/ import Mathlib',
    '',
  ];
  for (const h of headers) t.equal(isModule(h), canonicalHeader(h).split('\n').includes('module'), JSON.stringify(h));
  t.ok(isModule('module\nimport Mathlib'));
  t.notOk(isModule('import Foo.module'));
});
