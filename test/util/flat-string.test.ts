import t from 'tap';
import v8 from 'node:v8';
import vm from 'node:vm';
import { flatString } from '../../src/util/flat-string.ts';
import { localCacheKey } from '../../src/cache/result-cache.ts';
import { chainKey } from '../../src/backend/session/keys.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A key as the canonical form builds one: a rope of 24 pieces, each appended. */
function rope(i: number): string {
  let s = 'check\u0000bench\u0000';
  for (let k = 0; k < 12; k++) {
    s += `s${k + 10}:`;
    s += `v${i}_${k}`;
  }
  return `c:${s}`;
}

/** Heap bytes kept per string made by `make`, 20,000 of them held. */
function keptPerString(make: (i: number) => string): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const held = Array.from({ length: 20_000 }, (_, i) => make(i));
  gc();
  const after = process.memoryUsage().heapUsed;
  t.equal(held.length, 20_000);
  return (after - before) / held.length;
}

t.test('a flattened key is the same string, and the heap keeps far less of it than of its rope', async (t) => {
  t.equal(flatString(rope(7)), rope(7));
  t.equal(flatString(''), '');
  const asRope = keptPerString(rope);
  const flat = keptPerString((i) => flatString(rope(i)));
  // Measured on Node 20: ~1,400 bytes a rope, ~185 flattened. A third is far from both.
  t.ok(flat < asRope / 3, `flattened ${flat.toFixed(0)} B vs rope ${asRope.toFixed(0)} B a key`);
});

t.test('the keys kept for as long as their entries are flat', async (t) => {
  const request = { content: 'example : [1] = [1] := rfl\n', ignore_imports: false, declarations: ['a', 'b'] };
  const cacheKeys = keptPerString((i) =>
    localCacheKey('check', 'bench', { ...request, content: `${i}${request.content}` }),
  );
  const chain = keptPerString((i) => chainKey('root0123456789abcdef', `theorem t${i} : True := trivial`));
  // Each flat: its characters (two bytes each at most) and a few headers, not a piece per member.
  t.ok(cacheKeys < 500, `cache key ${cacheKeys.toFixed(0)} B`);
  t.ok(chain < 180, `chain key ${chain.toFixed(0)} B`);
});
