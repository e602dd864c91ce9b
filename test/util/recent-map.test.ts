/**
 * RecentMap (src/util/recent-map.ts) answers as lru-cache does with `max` (the session's outcomes
 * used it): the same `has` and `get` answers and the same entries kept, over random operations on
 * a few keys, so evictions, refreshes and replacements are all met.
 */
import t from 'tap';
import { LRUCache } from 'lru-cache';
import { RecentMap } from '../../src/util/recent-map.ts';

/** A small deterministic generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

t.test('the same answers and entries as lru-cache over random operations', async (t) => {
  for (const max of [1, 2, 5]) {
    const next = random(max);
    const ours = new RecentMap<string, number>(max);
    const theirs = new LRUCache<string, number>({ max });
    let differences = 0;
    for (let i = 0; i < 5000; i++) {
      const key = `k${Math.floor(next() * (2 * max + 2))}`;
      const op = next();
      if (op < 0.3) differences += Number(ours.has(key) !== theirs.has(key));
      else if (op < 0.6) differences += Number(ours.get(key) !== theirs.get(key));
      else {
        ours.set(key, i);
        theirs.set(key, i);
      }
      differences += Number(ours.size !== theirs.size);
    }
    t.equal(differences, 0, `max ${max}: no answer differs`);
    // Entries, least recently used first: lru-cache's rkeys() lists them in that order.
    const kept: string[] = [];
    for (const k of theirs.rkeys()) kept.push(k);
    const mine = kept.filter((k) => ours.has(k));
    t.same(mine, kept, `max ${max}: the same entries`);
    // Whatever the last operations, the next eviction takes the same entry from both.
    ours.set('new', -1);
    theirs.set('new', -1);
    t.same(
      kept.filter((k) => ours.has(k)),
      kept.filter((k) => theirs.has(k)),
      `max ${max}: the same one evicted`,
    );
  }
});

t.test('get refreshes, has does not; past max the least recently used goes', async (t) => {
  const m = new RecentMap<string, number>(2);
  m.set('a', 1).set('b', 2);
  t.equal(m.has('a'), true);
  m.set('c', 3);
  t.equal(m.has('a'), false, 'has did not refresh a: it went first');
  m.set('a', 1);
  t.equal(m.get('c'), 3, 'c refreshed');
  m.set('d', 4);
  t.same([m.has('a'), m.has('c'), m.has('d')], [false, true, true], 'a went, not the refreshed c');
  t.throws(() => new RecentMap(0), RangeError);
});
