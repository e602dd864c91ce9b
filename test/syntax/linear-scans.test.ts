/**
 * Issue 23, items 4 and 9: scans over user input stay linear. Asserted as the ratio of the
 * best runs between sizes n and 8n (`growth` below; linear: ~8; the quadratic scans this
 * guards against: ~64; the threshold between them leaves room for GC noise on a loaded
 * machine, where a linear parse measured up to 10× at 4n), never as an absolute time. Sizes are large enough for each run to
 * take tens of milliseconds (small runs are dominated by GC and JIT noise).
 */
import t from 'tap';
import { parseSource } from '../../src/syntax/source.ts';
import { renameInSource } from '../../src/syntax/renaming.ts';
import { NameIndex, resolveName } from '../../src/syntax/names.ts';
import { commandHead } from '../../src/syntax/command-head.ts';
import { headerEnd } from '../../src/syntax/header-end.ts';

/** CPU time of one run of `f` in this process, in µs (not wall-clock time: on a loaded machine the wait for a core would dominate). */
function cpu(f: () => unknown): number {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return Math.max(c.user + c.system, 500);
}

/**
 * Whether 8× the input costs less than `limit`× the time: the best of five warm runs at n
 * against the best of up to six runs at 8n, `ratio` the last ratio measured. The runs at 8n
 * stop at the first one under the limit: the best of all six could only be lower, so the
 * verdict is the one all six would give, for a fraction of the CPU (the runs at 8n are ~90%
 * of it). A cold first run at 8n only counts against the scan, never for it.
 */
function growth(make: (n: number) => () => unknown, n: number, limit: number): { linear: boolean; ratio: number } {
  const small = make(n);
  const large = make(8 * n);
  small();
  let bestSmall = Infinity;
  for (let i = 0; i < 5; i++) bestSmall = Math.min(bestSmall, cpu(small));
  let bestLarge = Infinity;
  for (let i = 0; i < 6; i++) {
    bestLarge = Math.min(bestLarge, cpu(large));
    if (bestLarge / bestSmall < limit) break;
  }
  return { linear: bestLarge / bestSmall < limit, ratio: bestLarge / bestSmall };
}

/** Linear: ~8 (measured 11–15 here: GC grows a little faster than the input); quadratic: ~64. */
const LINEAR = 28;

const families: [string, (n: number) => string][] = [
  // The declaration-prefix skip restarted from every modifier of a run with no command after it.
  ['modifier lines without a command', (n) => 'private\n'.repeat(n)],
  ['modifiers before a theorem', (n) => `${'noncomputable private '.repeat(n)}theorem a : True := trivial\n`],
  ['attributes before a theorem', (n) => `${'@[simp] '.repeat(n)}theorem a : True := trivial\n`],
  ['doc comments without a command', (n) => '/-- d -/\n'.repeat(n)],
];

for (const [name, gen] of families) {
  t.test(`parse: ${name}`, async (t) => {
    const r = growth(
      (n) => {
        const text = gen(n);
        return () => parseSource(text);
      },
      16_000,
      LINEAR,
    );
    t.ok(r.linear, `8× the input costs ${r.ratio.toFixed(1)}× the time`);
  });
}

// A partial scan reads on from where it stopped: a head behind a long run of prefixes, or a long header, is read once.
const partialReads: [string, (text: string) => unknown, (n: number) => string][] = [
  ['command head behind attributes', commandHead, (n) => `${'@[simp] '.repeat(n)}theorem a : True := trivial\n`],
  [
    'command head behind a comment and modifiers',
    commandHead,
    (n) => `/- ${'c'.repeat(n)} -/ ${'private '.repeat(n)}def x := 1`,
  ],
  ['header of many imports', headerEnd, (n) => `${'import A.B\n'.repeat(n)}def x := 1\n`],
  ['header after a long comment', headerEnd, (n) => `/- ${'c'.repeat(8 * n)} -/\n${'public import A\n'.repeat(n)}`],
];

for (const [name, read, gen] of partialReads) {
  t.test(`partial scan: ${name}`, async (t) => {
    const r = growth(
      (n) => {
        const text = gen(n);
        return () => read(text);
      },
      32_000,
      LINEAR,
    );
    t.ok(r.linear, `8× the input costs ${r.ratio.toFixed(1)}× the time`);
  });
}

t.test('rename: many declarations sharing their last name component', async (t) => {
  const r = growth(
    (n) => {
      const content = Array.from(
        { length: n },
        (_, i) => `namespace N${i}\ndef foo : Nat := ${i}\ntheorem t : foo = ${i} := rfl\nend N${i}\n`,
      ).join('');
      const map = Object.fromEntries(Array.from({ length: n }, (_, i) => [`N${i}.foo`, `N${i}.bar`]));
      return () => renameInSource(content, map);
    },
    1_500,
    LINEAR,
  );
  t.ok(r.linear, `8× the declarations cost ${r.ratio.toFixed(1)}× the time`);
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
