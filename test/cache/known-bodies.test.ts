/** Known bodies (src/cache/known-bodies.ts): found by their exact bytes only, bounded, own copies. */
import t from 'tap';
import { fingerprint, KnownBodies } from '../../src/cache/known-bodies.ts';
import type { RawKey } from '../../src/cache/result-cache.ts';

const key = (s: string) => s as RawKey;
const body = (n: number, fill = 'a') => Buffer.from(JSON.stringify({ content: fill.repeat(n) }));

t.test('a remembered body is found by equal bytes, for its tool only', async (t) => {
  const known = new KnownBodies();
  const b = body(1000);
  t.equal(known.find('check', b), undefined, 'nothing before it is remembered');
  const e = known.remember('check', b, key('r:1'));
  t.equal(e.text, b.toString(), 'its text, decoded once');
  const again = Buffer.from(b);
  t.equal(known.find('check', again)?.rawKey, 'r:1', 'another buffer with the same bytes');
  t.equal(known.find('check', again)?.text, e.text, 'the same text for every repeat');
  t.equal(known.find('theorem2sorry', again), undefined, 'the same body for another tool is another request');
});

t.test('a fingerprint collision is not a hit: the bytes are compared', async (t) => {
  const known = new KnownBodies();
  const b = body(1000);
  known.remember('check', b, key('r:1'));
  // Change bytes until the fingerprint is unchanged but the body differs (a byte the samples skip).
  let twin: Buffer | undefined;
  for (let i = 1; i < b.length - 1 && !twin; i++) {
    const c = Buffer.from(b);
    c[i] = c[i] === 0x61 ? 0x62 : 0x61;
    if (fingerprint(c) === fingerprint(b)) twin = c;
  }
  t.ok(twin, 'a body with the same fingerprint exists (the samples cover a few words)');
  t.equal(known.find('check', twin!), undefined, 'different bytes, same fingerprint: not found');
  t.equal(known.find('check', Buffer.from(b))?.rawKey, 'r:1');
});

t.test('remembered bytes are a copy: the request buffer may be reused', async (t) => {
  const known = new KnownBodies();
  const b = body(100);
  const copy = Buffer.from(b);
  known.remember('check', b, key('r:1'));
  b.fill(0x20);
  t.equal(known.find('check', copy)?.rawKey, 'r:1');
});

t.test('bounded in entries and bytes; large bodies are not kept', async (t) => {
  const known = new KnownBodies({ entries: 3, bytes: 10_000, body: 2_000 });
  const bodies = [0, 1, 2, 3].map((i) => body(100, String(i)));
  bodies.forEach((b, i) => known.remember('check', b, key(`r:${i}`)));
  t.equal(known.size, 3);
  t.equal(known.find('check', bodies[0]!), undefined, 'the oldest went first');
  t.equal(known.find('check', bodies[3]!)?.rawKey, 'r:3');

  const large = body(3_000);
  t.equal(known.remember('check', large, key('r:large')).text, large.toString(), 'answered, not kept');
  t.equal(known.find('check', large), undefined);
  t.equal(known.size, 3, 'and it dropped nothing');

  const mid = [0, 1, 2].map((i) => body(1_900, String(i)));
  mid.forEach((b, i) => known.remember('check', b, key(`r:m${i}`)));
  t.ok(known.bytes <= 10_000, `within the byte bound (${known.bytes})`);
  t.equal(known.find('check', mid[2]!)?.rawKey, 'r:m2', 'the newest is kept');
  t.equal(known.find('check', mid[0]!), undefined, 'older ones made room');
});

t.test('short bodies have a fingerprint too', async (t) => {
  const known = new KnownBodies();
  for (const s of ['', '1', '{}', '[1]']) known.remember('check', Buffer.from(s), key(`r:${s}`));
  for (const s of ['', '1', '{}', '[1]']) t.equal(known.find('check', Buffer.from(s))?.rawKey, `r:${s}`, s);
});
