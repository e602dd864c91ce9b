/** The result cache: canonical keys, stored hits, raw-body aliases, byte bound. */
import t from 'tap';
import { createHash } from 'node:crypto';
import {
  ENTRY_OVERHEAD_BYTES,
  INLINE_KEY_CHARS,
  INLINE_RAW_KEY_BYTES,
  inlineBodyText,
  primitiveJson,
  ResultCache,
  STORED_ID,
  timingsTailAt,
} from '../../src/cache/result-cache.ts';

/** What a stored body ends with: the hit's timings, then `info` with the placeholder id each answer overwrites. */
const STORED = { timings: { total_ms: 0 }, info: { request_id: STORED_ID } };
t.test('keys ignore key order and timeout_seconds, not other fields', async (t) => {
  const c = new ResultCache(1 << 20);
  t.equal(
    c.key('check', 'e', { a: 1, b: { y: 2, x: 1 } }),
    c.key('check', 'e', { b: { x: 1, y: 2 }, a: 1, timeout_seconds: 5 }),
  );
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
  t.same(JSON.parse(hit.body.toString()), { okay: true, ...STORED });
  t.same([c.stats().hits, c.stats().misses], [1, 1]);
});

t.test('raw bodies alias a cached key only, per tool', async (t) => {
  const c = new ResultCache(1 << 20);
  const k = c.key('check', 'e', { a: 1 });
  const raw = (tool: string, body: string) => c.rawKey(tool, body);
  c.alias(raw('check', '{"a":1}'), k);
  t.equal(c.getRaw(raw('check', '{"a":1}')), undefined, 'no alias to a key that is not cached');
  c.set(k, { okay: true });
  c.alias(raw('check', '{"a":1}'), k);
  t.same(JSON.parse(c.getRaw(raw('check', '{"a":1}'))!.body.toString()), { okay: true, ...STORED });
  t.equal(c.getRaw(raw('merge', '{"a":1}')), undefined, 'another tool with the same body is another request');
  t.equal(c.getRaw(raw('check', '{"a": 1}')), undefined, 'only byte-identical bodies');
});

t.test('bounded in bytes; 0 disables the cache', async (t) => {
  const small = new ResultCache(200);
  small.set('k', { text: 'x'.repeat(500) });
  t.equal(small.get('k'), undefined, 'an entry larger than the cache is not stored');
  const off = new ResultCache(0);
  off.set('k', { okay: true });
  off.alias(off.rawKey('t', 'b'), 'k');
  t.equal(off.get('k'), undefined);
  t.equal(off.getRaw(off.rawKey('t', 'b')), undefined);
  t.equal(off.stats().entries, 0);
});

t.test('one stored form per entry: an exactly sized Buffer of its own, not a slice of the shared pool', async (t) => {
  const c = new ResultCache(1 << 20);
  const k = c.key('check', 'e', { a: 1 });
  c.set(k, { text: 'é'.repeat(10) });
  const { body } = c.get(k)!;
  t.equal(body.byteLength, Buffer.byteLength(JSON.stringify({ text: 'é'.repeat(10), ...STORED })));
  t.equal(body.buffer.byteLength, body.byteLength, 'the backing store is the entry itself');
});

t.test('the bound counts entries as their bytes plus overhead, and aliases too', async (t) => {
  const big = 'x'.repeat(10_000);
  const max = 10 * (10_000 + ENTRY_OVERHEAD_BYTES + 100);
  const c = new ResultCache(max);
  for (let i = 0; i < 50; i++) {
    const k = c.key('check', 'e', { content: `${i}` });
    c.set(k, { text: big });
    c.alias(c.rawKey('check', `{"content":"${i}"}`), k);
  }
  const s = c.stats();
  t.ok(s.bytes <= max, `counted ${s.bytes} ≤ bound ${max}`);
  t.ok(s.entries >= 8 && s.entries <= 10, `about bound ÷ entry size entries kept (${s.entries})`);
  t.ok(s.aliases > 0, 'aliases are kept, and counted');
  t.ok(s.bytes >= s.entries * (10_000 + ENTRY_OVERHEAD_BYTES), 'an entry counts at least its bytes and its overhead');
  // Replacing an entry does not count it twice.
  const k0 = c.key('check', 'e', { content: '49' });
  c.set(k0, { text: 'small' });
  t.equal(c.stats().entries, s.entries);
});

t.test('keys: strings are length-prefixed, so no two requests share a canonical form', async (t) => {
  const c = new ResultCache(1 << 20);
  t.not(c.key('check', 'e', { a: 'x', b: 'y' }), c.key('check', 'e', { a: 'x","b":"y' }));
  t.not(c.key('check', 'e', { a: '1' }), c.key('check', 'e', { a: 1 }));
  t.not(c.key('check', 'e', { a: [1, 2] }), c.key('check', 'e', { a: [[1, 2]] }));
  t.equal(
    c.key('check', 'e', { a: undefined, b: 1 }),
    c.key('check', 'e', { b: 1 }),
    'an absent field is an absent field',
  );
});

t.test(
  'keys: the canonical form is one fixed byte stream, whether a long string is hashed in place or not',
  async (t) => {
    const c = new ResultCache(1 << 20);
    // The form spelled out: tool NUL environment NUL, keys sorted, strings length-prefixed, numbers as JSON.
    const reference = (content: string) =>
      createHash('sha256')
        .update(`check\u0000e\u0000{s7:contents${content.length}:${content}s5:namesa2[s1:as1:b]s5:tallyp3;}`)
        .digest('base64url');
    for (const n of [0, 10, 4095, 4096, 100_000]) {
      const content = 'x'.repeat(n);
      t.equal(
        c.key('check', 'e', { names: ['a', 'b'], content, tally: 3, timeout_seconds: 9 }),
        reference(content),
        `${n} chars`,
      );
    }
    // Around the in-place threshold, a one-character change still changes the key.
    const long = 'y'.repeat(5000);
    t.not(c.key('check', 'e', { content: long }), c.key('check', 'e', { content: `${long.slice(1)}z` }));
  },
);

t.test('set with the raw key stores its alias too; a result too large for the cache gets neither', async (t) => {
  const c = new ResultCache(4096);
  const raw = c.rawKey('check', '{"content":"x"}');
  const k = c.key('check', 'e', { content: 'x' });
  c.set(k, { okay: true }, raw);
  t.ok(c.getRaw(raw), 'the raw body now hits');
  const bigRaw = c.rawKey('check', '{"content":"big"}');
  const bigKey = c.key('check', 'e', { content: 'big' });
  c.set(bigKey, { content: 'y'.repeat(8192) }, bigRaw);
  t.equal(c.get(bigKey), undefined);
  t.equal(c.getRaw(bigRaw), undefined);
  t.equal(c.stats().aliases, 1);
});

t.test('keys: key order never matters, for small objects (sorted by insertion) and large ones', async (t) => {
  const c = new ResultCache(1 << 20);
  for (const n of [2, 5, 16, 17, 40]) {
    const names = Array.from({ length: n }, (_, i) => `k${(i * 7919) % 1000}_${i}`);
    const forward = Object.fromEntries(names.map((k, i) => [k, i]));
    const backward = Object.fromEntries([...names].reverse().map((k) => [k, forward[k]]));
    t.equal(
      c.key('check', 'e', { declarations: forward }),
      c.key('check', 'e', { declarations: backward }),
      `${n} keys`,
    );
  }
  // Code-unit order, as sort() orders: 'B' (0x42) before 'a' (0x61), '_' (0x5f) between.
  const reference = createHash('sha256').update('check\u0000e\u0000{s1:Bp1;s1:_p2;s1:ap3;}').digest('base64url');
  t.equal(c.key('check', 'e', { a: 3, _: 2, B: 1 }), reference);
});

t.test("a primitive's canonical text is its JSON text", async (t) => {
  const values = [
    true,
    false,
    null,
    undefined,
    0,
    -0,
    1,
    -1,
    0.1,
    1e21,
    1e-7,
    2 ** 53,
    Number.NaN,
    Infinity,
    -Infinity,
    123.456,
  ];
  for (const v of values) t.equal(primitiveJson(v), JSON.stringify(v) ?? 'null', String(v));
});

t.test(
  'raw keys: the same for a body as bytes and as its text, short bodies their own key, long ones hashed',
  async (t) => {
    const c = new ResultCache(1 << 20);
    const n = INLINE_RAW_KEY_BYTES;
    const bodies = {
      ascii: '{"content":"theorem a : 1 = 1 := rfl"}',
      'non-ASCII': '{"content":"théorème ∀ x, x = x 😀"}',
      'at the bound': 'x'.repeat(n),
      'one past it': 'x'.repeat(n + 1),
      'a character straddling it': `${'x'.repeat(n - 1)}é`,
      'non-ASCII, long': '∀'.repeat(n),
      empty: '',
    };
    for (const [name, text] of Object.entries(bodies)) {
      const bytes = Buffer.from(text);
      t.equal(c.rawKey('check', text), c.rawKey('check', bytes), `${name}: text and bytes agree`);
      const key = c.rawKey('check', bytes);
      t.equal(key.startsWith('b:'), bytes.length <= n, `${name} (${bytes.length} bytes): ${key.slice(0, 2)}`);
      t.not(c.rawKey('merge', bytes), key, `${name}: another tool, another key`);
      // The body's text read back from its key only where the key holds it and it is its UTF-8 text.
      const ascii = bytes.length <= n && [...text].every((ch) => ch.charCodeAt(0) < 0x80);
      t.equal(inlineBodyText(key, 'check', bytes), ascii ? text : undefined, `${name}: text from the key`);
    }
    // A short body that looks like a digest is not a hashed body's key: the two forms differ by prefix.
    const digestLike = c.rawKey('check', 'x'.repeat(n + 5)).slice('r:check:'.length);
    t.not(c.rawKey('check', digestLike), c.rawKey('check', 'x'.repeat(n + 5)));
    t.not(c.rawKey('check', 'ab'), c.rawKey('check', 'ab '), 'byte-identical only');
  },
);

t.test("an alias counts its raw key's length", async (t) => {
  const sizeAfterAlias = (body: string) => {
    const c = new ResultCache(1 << 20);
    const k = c.key('check', 'e', { a: 1 });
    c.set(k, { okay: true });
    const before = c.stats().bytes;
    c.alias(c.rawKey('check', body), k);
    return c.stats().bytes - before;
  };
  t.equal(sizeAfterAlias('x'.repeat(1000)) - sizeAfterAlias('x'), 999);
});

t.test(
  'local keys: a short request is its own key, a long one its digest; either way one key per request',
  async (t) => {
    const c = new ResultCache(1 << 20);
    const short = { content: 'theorem a : 1 = 1 := rfl', environment: 'e', ignore_imports: false, timeout_seconds: 5 };
    const reordered = {
      timeout_seconds: 9,
      ignore_imports: false,
      environment: 'e',
      content: 'theorem a : 1 = 1 := rfl',
    };
    const local = c.localKey('check', 'e', short);
    t.ok(local.startsWith('c:'), 'a short request is its own key');
    t.equal(c.localKey('check', 'e', reordered), local, 'key order and timeout_seconds do not matter');
    t.not(c.localKey('check', 'e', { ...short, ignore_imports: true }), local, 'another request, another key');
    t.not(c.localKey('verify_proof', 'e', short), local, 'another tool, another key');
    t.not(local, c.key('check', 'e', short), 'the shared key is the digest');
    for (const n of [INLINE_KEY_CHARS, 5000]) {
      const long = { content: 'x'.repeat(n) };
      t.equal(
        c.localKey('check', 'e', long),
        c.key('check', 'e', long),
        `a request of ${n} content characters is hashed`,
      );
    }
    // A digest is base64url (no ':'), so it never equals a canonical form's 'c:' key.
    t.notOk(c.key('check', 'e', short).includes(':'));
  },
);

t.test('a result stored under a local key is found by it, and its raw alias too', async (t) => {
  const c = new ResultCache(1 << 20);
  const k = c.localKey('check', 'e', { content: 'x' });
  const raw = c.rawKey('check', '{"content":"x"}');
  c.set(k, { okay: true }, raw);
  t.ok(c.get(k));
  t.ok(c.getRaw(raw));
});

t.test(
  'an entry counts its key at two bytes a character (a local key past Latin-1 is a two-byte string)',
  async (t) => {
    const c = new ResultCache(1 << 20);
    const short = c.localKey('check', 'e', { content: 'ℕ' });
    const long = c.localKey('check', 'e', { content: 'ℕ'.repeat(101) });
    c.set(short, { okay: true });
    const one = c.stats().bytes;
    c.set(long, { okay: true });
    t.equal(c.stats().bytes - one - one, 2 * (long.length - short.length));
  },
);

t.test('where a flat timings member ends a text: what the regular expression it replaces finds', async (t) => {
  // The earlier reading: the last `,"timings":{`, then the rest matched whole.
  const byRegex = (json: string): number => {
    const at = json.lastIndexOf(',"timings":{');
    return at >= 0 && /^,"timings":\{[^{}]*\}\}$/.test(json.slice(at)) ? at : -1;
  };
  const texts = [
    '{"okay":true,"timings":{"total_ms":5}}',
    '{"okay":true,"timings":{}}',
    '{"timings":{"total_ms":5}}',
    '{"okay":true,"timings":{"a":{"b":1}}}',
    '{"okay":true,"x":{"y":1,"timings":{"total_ms":5}}}',
    '{"okay":true,"timings":{"total_ms":5},"z":1}',
    '{"okay":true,"s":",\\"timings\\":{}}","timings":{"t":1}}',
    '{"okay":true,"timings":{"total_ms":5}}}',
    ',"timings":{}}',
    '"timings":{}}',
    '{}}',
    '}}',
    '}',
    '',
    '{"timings":{"total_ms":5},"timings":{"t":1}}',
  ];
  for (const text of texts) t.equal(timingsTailAt(text), byRegex(text), JSON.stringify(text));
  // Every cut of a real result's text, and each with a brace put in at each place.
  const real = JSON.stringify({ okay: true, messages: ['a}'], timings: { parse_ms: 1, total_ms: 2 } });
  for (let i = 0; i <= real.length; i++) {
    t.equal(timingsTailAt(real.slice(0, i)), byRegex(real.slice(0, i)));
    for (const b of ['{', '}']) {
      const v = real.slice(0, i) + b + real.slice(i);
      if (timingsTailAt(v) !== byRegex(v)) t.fail(JSON.stringify(v));
    }
  }
});
