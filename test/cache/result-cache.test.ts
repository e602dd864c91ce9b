/** The result cache: canonical keys, stored hits, raw-body aliases, byte bound. */
import t from 'tap';
import { ResultCache } from '../../src/cache/result-cache.ts';

t.test('keys ignore key order and timeout_seconds, not other fields', async (t) => {
  const c = new ResultCache(1 << 20);
  t.equal(c.key('check', 'e', { a: 1, b: { y: 2, x: 1 } }), c.key('check', 'e', { b: { x: 1, y: 2 }, a: 1, timeout_seconds: 5 }));
  t.not(c.key('check', 'e', { a: 1 }), c.key('check', 'e', { a: 2 }));
  t.not(c.key('check', 'e', { a: 1 }), c.key('check', 'f', { a: 1 }));
  t.not(c.key('check', 'e', { a: 1 }), c.key('merge', 'e', { a: 1 }));
});

t.test('a hit is stored with the timings of a hit, ready to send', async (t) => {
  const c = new ResultCache(1 << 20);
  const k = c.key('check', 'e', { a: 1 });
  t.equal(c.get(k), undefined);
  c.set(k, { okay: true, timings: { total_ms: 12 } });
  const hit = c.get(k)!;
  t.same(hit.response, { okay: true, timings: { total_ms: 0 } });
  t.equal(hit.json, JSON.stringify(hit.response));
  t.same([c.stats().hits, c.stats().misses], [1, 1]);
});

t.test('raw bodies alias a cached key only, per tool', async (t) => {
  const c = new ResultCache(1 << 20);
  const k = c.key('check', 'e', { a: 1 });
  c.alias('check', '{"a":1}', k);
  t.equal(c.getRaw('check', '{"a":1}'), undefined, 'no alias to a key that is not cached');
  c.set(k, { okay: true });
  c.alias('check', '{"a":1}', k);
  t.same(c.getRaw('check', '{"a":1}')?.response, { okay: true, timings: { total_ms: 0 } });
  t.equal(c.getRaw('merge', '{"a":1}'), undefined, 'another tool with the same body is another request');
  t.equal(c.getRaw('check', '{"a": 1}'), undefined, 'only byte-identical bodies');
});

t.test('bounded in bytes; 0 disables the cache', async (t) => {
  const small = new ResultCache(200);
  small.set('k', { text: 'x'.repeat(500) });
  t.equal(small.get('k'), undefined, 'an entry larger than the cache is not stored');
  const off = new ResultCache(0);
  off.set('k', { okay: true });
  off.alias('t', 'b', 'k');
  t.equal(off.get('k'), undefined);
  t.equal(off.getRaw('t', 'b'), undefined);
  t.equal(off.stats().entries, 0);
});
