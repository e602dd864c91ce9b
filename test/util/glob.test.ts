/**
 * Name globs: the linear matcher answers as the regular expression verify_proof used to build
 * (`a*b` → `^a.*b$`), and answers the patterns that made that expression backtrack for seconds
 * within a number of comparisons linear in the name (counted, not timed).
 */
import fc from 'fast-check';
import t from 'tap';
import { compileGlob, compileNamePatterns, matchesAny, matchGlob, type StepCounter } from '../../src/util/glob.ts';

/** The former `permits` of src/tools/verify-proof.ts, the reference (backtracking) implementation. */
function regexPermits(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) =>
    p.includes('*')
      ? new RegExp(
          `^${p
            .split('*')
            .map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        ).test(name)
      : p === name,
  );
}

const linear = (patterns: readonly string[], name: string) => matchesAny(compileNamePatterns(patterns), name);

const NAMES = [
  '',
  'main',
  'main_aux',
  'Nat.add_comm',
  'main._native.native_decide.ax_1_1',
  'foo._native.native_decide.ax_2_3',
  'Lean.ofReduceBool',
  'a.b.c',
  'ab',
  'abab',
  'aab',
  'abaabab',
  'x+y?',
  '(weird)[name]{1}^$|\\',
  'α.β_γ',
  '𝔽.card',
];
const GLOBS = [
  '*',
  '**',
  'main',
  'main*',
  '*main',
  'ma*in',
  'a.*',
  '*.b.*',
  'a*b',
  '*ab*ab*',
  '*aab*',
  'ab*ab',
  'a*a*a*b',
  '*._native.native_decide.*',
  'main._native.native_decide.*',
  'x+*?',
  '(weird)*{1}^$|\\',
  'α*γ',
  '*.card',
  '𝔽*',
  '',
];

t.test('the corpus: every glob against every name answers as the regex did', async (t) => {
  const differ: string[] = [];
  for (const g of GLOBS)
    for (const n of NAMES) if (linear([g], n) !== regexPermits([g], n)) differ.push(`${JSON.stringify(g)} ~ ${n}`);
  t.same(differ, []);
  t.equal(linear(['main'], 'main_aux'), false, 'a name without `*` is exact, not a prefix');
  t.equal(linear(['main*'], 'main_aux'), true);
  t.equal(linear(['*'], ''), true, '`*` may be empty');
  t.equal(linear(['a*b'], 'ab'), true);
  t.equal(linear(['ab*ba'], 'aba'), false, 'the ends may not overlap');
  t.equal(linear([], 'x'), false);
});

t.test('property: the linear matcher agrees with the regex on small alphabets', async (t) => {
  // Few letters, so that near-misses, overlaps and repeated pieces are frequent. Line breaks are
  // left out: the regex's `.` never matched them (the one intended difference, tested below).
  const nameArb = fc.string({ unit: fc.constantFrom('a', 'b', '.', 'é'), maxLength: 14 });
  const globArb = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', 'é'), maxLength: 10 });
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(fc.array(globArb, { maxLength: 4 }), nameArb, (g, n) => linear(g, n) === regexPermits(g, n)),
      { numRuns: 3000 },
    ),
  );
});

t.test('`*` stands for any run of characters, line breaks included (the regex’s `.` stopped at them)', async (t) => {
  t.equal(linear(['a*b'], 'a\nb'), true);
  t.equal(regexPermits(['a*b'], 'a\nb'), false, 'the former behaviour, for the record');
});

/** Comparisons made matching `glob` against `name`, and the answer. */
function counted(glob: string, name: string): { match: boolean; steps: number } {
  const c: StepCounter = { steps: 0 };
  const match = matchGlob(compileGlob(glob), name, c);
  return { match, steps: c.steps };
}

t.test('adversarial globs: comparisons stay within 2·|name| + |pattern|', async (t) => {
  const cases: [string, string, boolean][] = [
    // Ten stars against 40 characters: the regex backtracked through C(40, 10) placements.
    [`${'a*'.repeat(10)}b`, 'a'.repeat(40), false],
    [`${'a*'.repeat(30)}b`, 'a'.repeat(200), false],
    [`${'a*'.repeat(30)}b`, `${'a'.repeat(199)}b`, true],
    // Ends that match, middle pieces that run out: the whole name is scanned.
    [`*${'ba*'.repeat(10)}c`, `${'ba'.repeat(5)}${'a'.repeat(35)}c`, false],
    [`${'a*'.repeat(30)}b`, `${'a'.repeat(20)}b`, false],
    [`*${'a'.repeat(50)}b*`, 'a'.repeat(5000), false],
    [`*${'ab'.repeat(20)}c*`, 'ab'.repeat(2500), false],
    [`${'*a'.repeat(100)}*`, 'b'.repeat(5000), false],
  ];
  for (const [glob, name, match] of cases) {
    const r = counted(glob, name);
    t.equal(r.match, match, `${glob.slice(0, 20)}… ~ ${name.length} chars`);
    const bound = 2 * name.length + glob.length;
    t.ok(r.steps <= bound, `${r.steps} comparisons ≤ ${bound} (the product n·m is ${name.length * glob.length})`);
  }
});

t.test('a compiled list looks exact names up and tries each glob once', async (t) => {
  const names = Array.from({ length: 10_000 }, (_, i) => `thm_${i}`);
  const p = compileNamePatterns([...names, 'x.*']);
  t.equal(p.exact.size, 10_000);
  t.equal(p.globs.length, 1);
  const c: StepCounter = { steps: 0 };
  t.equal(matchesAny(p, 'thm_9999', c), true);
  t.equal(c.steps, 0, 'an exact name costs a lookup, no comparisons');
  t.equal(matchesAny(p, 'x.y', c), true);
  t.equal(matchesAny(p, 'thm_10000', c), false);
});
