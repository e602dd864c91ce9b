/**
 * A miss's response text made from the cache's stored text (src/server/response-text.ts) is,
 * byte for byte, the result with its request id serialised again, for every shape of result:
 * timings last (made from the stored text), elsewhere, absent or left out by JSON, an `info` of
 * its own, and look-alikes of the stored tail inside a string or a nested object.
 */
import t from 'tap';
import { ResultCache, STORED_ID, storedInfo, storedTail } from '../../src/cache/result-cache.ts';
import { provenanceOf, type Provenance } from '../../src/envs/provenance.ts';
import { attachRequestId, newRequestId, withRequestId } from '../../src/server/request-id.ts';
import { responseText } from '../../src/server/response-text.ts';

const messages = { errors: [], warnings: ['w'], infos: [] };
const results: Record<string, object> = {
  'timings last': {
    okay: true,
    content: 'théorème a : 1 = 1 := rfl\n',
    lean_messages: messages,
    timings: { parse_ms: 2, total_ms: 5 },
  },
  'timings first': { timings: { total_ms: 5 }, okay: false, content: 'x' },
  'timings in the middle': { okay: true, timings: { total_ms: 1 }, documents: { a: 1 } },
  'no timings': { okay: true, content: 'x' },
  'timings undefined': { okay: true, timings: undefined },
  'timings a number': { okay: true, timings: 7 },
  'an info of its own': { okay: true, info: { note: 'kept' }, timings: { total_ms: 3 } },
  'the tail inside a string': { okay: true, timings: { total_ms: 3 }, content: ',"timings":{"total_ms":0}}' },
  'the tail inside a nested object': { okay: true, timings: { total_ms: 3 }, extra: { timings: { total_ms: 0 } } },
  'integer-like keys': { 2: 'b', 1: 'a', okay: true, timings: { total_ms: 4 } },
  'timings last, nested': { okay: true, timings: { total_ms: 4, parts: { parse_ms: 1 } } },
  'timings last, then a member JSON leaves out': { okay: true, timings: { total_ms: 4 }, later: undefined },
  'empty timings last': { okay: true, timings: {} },
  'a toJSON of its own': { okay: true, timings: { total_ms: 4 }, toJSON: () => ({ replaced: true }) },
};

const provenances: Record<string, Provenance | undefined> = {
  none: undefined,
  'an environment': provenanceOf(
    { lean_toolchain: 'leanprover/lean4:v4.28.0', revision: 'v4.28.0' },
    { commit: '0123456789abcdef0123456789abcdef01234567', imageId: null },
  ),
  'a brace in a value': provenanceOf({ lean_toolchain: 'x}"{', revision: null }, { commit: null, imageId: '}' }),
};

t.test('the response is the result with its id serialised, whatever its shape', async (t) => {
  for (const [pname, p] of Object.entries(provenances))
    for (const [name, result] of Object.entries(results)) {
      const cache = new ResultCache(1 << 20);
      const stored = cache.set(`k-${name}`, result, undefined, p?.members);
      t.type(stored, 'string', `${name}: stored`);
      const id = newRequestId();
      const expected = JSON.stringify(attachRequestId(result, id, p?.info));
      t.equal(responseText(result, id, stored, p), expected, `${name}, provenance: ${pname}`);
      t.equal(responseText(result, id, undefined, p), expected, `${name}, provenance: ${pname}, nothing stored`);
    }
});

t.test('the stored text is the result copied with a hit timings and the stored info, serialised', async (t) => {
  // What ResultCache.set wrote before it serialised the result itself: the copy, whatever its shape.
  for (const p of Object.values(provenances))
    for (const [name, result] of Object.entries(results)) {
      const copy = JSON.stringify({ ...result, timings: { total_ms: 0 }, info: undefined });
      const stored = new ResultCache(1 << 20).set('k', result, undefined, p?.members);
      t.equal(stored, `${copy.slice(0, -1)},${storedInfo(p?.members ?? '')}`, name);
    }
});

t.test('the stored text is what a hit sends: the same members with a hit timings and the provenance', async (t) => {
  for (const p of Object.values(provenances)) {
    const cache = new ResultCache(1 << 20);
    const result = results['timings last']!;
    const stored = cache.set('k', result, undefined, p?.members);
    t.equal(stored, cache.get('k')!.body.toString('utf8'));
    t.same(JSON.parse(stored!), { ...result, timings: { total_ms: 0 }, info: { ...p?.info, request_id: STORED_ID } });
    // The hit's answer (the stored bytes with its id) and the miss's: the same info, members in the same order.
    const hit = JSON.parse(String(withRequestId(cache.get('k')!.body, 'id-h'))) as { info: object };
    const miss = JSON.parse(responseText(result, 'id-h', stored, p)) as { info: object };
    t.equal(JSON.stringify(hit.info), JSON.stringify(miss.info), 'hit and miss: the same info');
  }
});

t.test('nothing is stored when caching is off or the result is larger than the cache', async (t) => {
  t.equal(new ResultCache(0).set('k', { okay: true }), undefined);
  t.equal(new ResultCache(400).set('k', { okay: true, content: 'x'.repeat(1000) }), undefined);
});

t.test('a stored text ending in the hit timings is what the response is made from', async (t) => {
  // A doctored stored text shows the response came from it, not from serialising the result again.
  const stored = `{"from":"stored"${storedTail('')}`;
  const text = responseText({ okay: true, timings: { total_ms: 9 } }, 'id-1', stored);
  t.equal(text, '{"from":"stored","timings":{"total_ms":9},"info":{"request_id":"id-1"}}');
});
