/**
 * Issue 23, items 4 and 9: scans over user input stay linear. Asserted as the ratio of the
 * best of five warm runs between sizes n and 4n (linear: ~4; the quadratic scans this
 * guards against: ~16), never as an absolute time. Sizes are large enough for each run to
 * take tens of milliseconds (small runs are dominated by GC and JIT noise).
 */
import t from 'tap';
import { parseSource } from '../../src/syntax/source.ts';
import { renameInSource } from '../../src/syntax/renaming.ts';
import { NameIndex, resolveName } from '../../src/syntax/names.ts';

/**
 * Best of five runs, in CPU time of this process (not wall-clock time: on a loaded machine
 * the wait for a core would dominate).
 */
function best(f: () => unknown): number {
  let min = Infinity;
  for (let i = 0; i < 5; i++) {
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    min = Math.min(min, c.user + c.system);
  }
  return Math.max(min, 500);
}

/** Ratio of the run time at 4n to that at n (after warm-up runs). */
function growth(make: (n: number) => () => unknown, n: number): number {
  const small = make(n);
  const large = make(4 * n);
  small();
  large();
  return best(large) / best(small);
}

/** Linear: ~4; quadratic: ~16. */
const LINEAR = 10;

const families: [string, (n: number) => string][] = [
  // The declaration-prefix skip restarted from every modifier of a run with no command after it.
  ['modifier lines without a command', (n) => 'private\n'.repeat(n)],
  ['modifiers before a theorem', (n) => `${'noncomputable private '.repeat(n)}theorem a : True := trivial\n`],
  ['attributes before a theorem', (n) => `${'@[simp] '.repeat(n)}theorem a : True := trivial\n`],
  ['doc comments without a command', (n) => '/-- d -/\n'.repeat(n)],
];

for (const [name, gen] of families) {
  t.test(`parse: ${name}`, async (t) => {
    const r = growth((n) => {
      const text = gen(n);
      return () => parseSource(text);
    }, 16_000);
    t.ok(r < LINEAR, `4× the input costs ${r.toFixed(1)}× the time`);
  });
}

t.test('rename: many declarations sharing their last name component', async (t) => {
  const r = growth((n) => {
    const content = Array.from(
      { length: n },
      (_, i) => `namespace N${i}\ndef foo : Nat := ${i}\ntheorem t : foo = ${i} := rfl\nend N${i}\n`,
    ).join('');
    const map = Object.fromEntries(Array.from({ length: n }, (_, i) => [`N${i}.foo`, `N${i}.bar`]));
    return () => renameInSource(content, map);
  }, 1_500);
  t.ok(r < LINEAR, `4× the declarations cost ${r.toFixed(1)}× the time`);
});

t.test('name resolution by candidates agrees with the scan it replaces for crowded last components', async (t) => {
  const names = ['A.B.foo', 'A.foo', 'foo', 'C.foo', 'A.C.foo', 'D.E.foo', 'A.B.D.E.foo', 'B.foo'];
  const crowd = Array.from({ length: 200 }, (_, i) => `X${i}.foo`);
  const scopes = [
    { namespace: 'A.B', opens: ['C', 'D.E'] },
    { namespace: '', opens: ['A', 'C'] },
    { namespace: 'A', opens: ['B', 'B'] },
  ];
  for (const scope of scopes)
    for (const written of ['foo', 'C.foo', 'E.foo', 'B.foo', '_root_.foo', 'X7.foo'])
      t.same(
        resolveName(written, scope, new NameIndex([...names, ...crowd])),
        resolveName(written, scope, new NameIndex(names.concat(written === 'X7.foo' ? ['X7.foo'] : []))),
        `${written} in ${scope.namespace || 'the root'} opening ${scope.opens.join(', ')}`,
      );
});
