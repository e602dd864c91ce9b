/** The scope facts a restated statement needs: the `universe`/`variable` commands in force at each declaration. */
import t from 'tap';
import { parseSource, SourceLimitError } from '../../src/syntax/source.ts';
import { leaveOpenScopes, scopeCommands } from '../../src/syntax/statements.ts';

const inForce = (src: string) => {
  const f = parseSource(src);
  return Object.fromEntries(f.decls.map((d) => [d.name, scopeCommands(f, d)]));
};

t.test('the commands of the scopes still open, in order; a closed scope takes its own with it', async (t) => {
  t.same(
    inForce(
      [
        'universe u',
        'section S',
        'variable {α : Type u}',
        'theorem a : True := trivial',
        'section',
        'variable (n : Nat)',
        'theorem b : True := trivial',
        'end',
        'theorem c : True := trivial',
        'end S',
        'theorem d : True := trivial',
      ].join('\n'),
    ),
    {
      a: ['universe u', 'variable {α : Type u}'],
      b: ['universe u', 'variable {α : Type u}', 'variable (n : Nat)'],
      c: ['universe u', 'variable {α : Type u}'],
      d: ['universe u'],
    },
  );
});

t.test('`namespace A.B` opens two scopes and `mutual … end` one of its own', async (t) => {
  t.same(
    inForce(
      [
        'namespace A',
        'variable (x : Nat)',
        'namespace B.C',
        'variable (y : Nat)',
        'end C',
        'theorem p : True := trivial',
        'end B',
        'mutual',
        'theorem q : True := trivial',
        'end',
        'theorem r : True := trivial',
        'end A',
      ].join('\n'),
    ),
    {
      p: ['variable (x : Nat)'],
      q: ['variable (x : Nat)'],
      r: ['variable (x : Nat)'],
    },
    "y lives in C's scope, which `end C` closes (B stays open until `end B`); `end` of mutual keeps A's",
  );
});

t.test('a `variable … in` prefix applies to its command only', async (t) => {
  t.same(inForce('variable (n : Nat) in\ntheorem a : n = n := rfl\ntheorem b : True := trivial\n'), { a: [], b: [] });
});

t.test('variables declared one command at a time draw on the scope budget', async (t) => {
  const src = Array.from(
    { length: 16_000 },
    (_, i) => `variable (x${i} : Nat)\ntheorem t${i} : True := trivial\n`,
  ).join('');
  // Refused by the budget, not after building 16,000 lists (its cost is measured in bench/, not timed here).
  t.throws(() => parseSource(src), SourceLimitError);
  t.throws(() => parseSource(src), {
    message: /would hold more than [\d,]+ entries in all \(\d+ namespaces open and \d+ variable/,
  });
  const f = parseSource(
    Array.from({ length: 1_000 }, (_, i) => `variable (x${i} : Nat)\ntheorem t${i} : True := trivial\n`).join(''),
  );
  t.equal(scopeCommands(f, f.decls.at(-1)!).length, 1_000);
});

t.test(
  'leaveOpenScopes closes the scopes the file leaves open, innermost first, one name component each',
  async (t) => {
    const f = parseSource('namespace A.B\nsection S.T\nnamespace C\nsection\nnoncomputable section\ndef x := 1\n');
    t.same(
      f.openScopes.map((s) => `${s.kind}:${s.name}`),
      ['namespace:A', 'namespace:B', 'section:S', 'section:T', 'namespace:C', 'section:', 'section:'],
    );
    t.same(leaveOpenScopes(f), ['end', 'end', 'end C', 'end T', 'end S', 'end B', 'end A']);
    t.same(leaveOpenScopes(parseSource('namespace A\nend A\nsection\nend\n')), [], 'nothing left open');
    t.same(parseSource('mutual\ndef f : Nat := 1\n').openScopes, [], 'an unterminated mutual opens no Lean scope');
  },
);
