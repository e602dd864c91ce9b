/**
 * Session chain keys (src/backend/session/keys.ts): a short chain is its own text, a long one its
 * SHA-256, and two different chains (root and commands) never share a key, whichever form each
 * took, NUL and digits in the texts included.
 */
import t from 'tap';
import { chainKey, chainKeys, INLINE_CHAIN_KEY_CHARS, rootKey } from '../../src/backend/session/keys.ts';

const HEX64 = /^[0-9a-f]{64}$/;

t.test('different chains never share a key', async (t) => {
  // Texts that a key without the lengths would run together: `a` then `b` against `a\0b`, digits beside NULs.
  const texts = ['', 'a', 'b', '0', '1', '\u0000', 'a\u0000b', '1\u0000a', 'a\u00001\u0000b', 'x'.repeat(200)];
  const roots = [rootKey('import Mathlib'), rootKey('import Other')];
  const seen = new Map<string, string>();
  const visit = (root: string, chain: string[], key: string) => {
    const name = JSON.stringify([root, chain]);
    const before = seen.get(key);
    if (before !== undefined && before !== name) t.fail(`${before} and ${name} share a key`);
    seen.set(key, name);
    if (chain.length < 3) for (const text of texts) visit(root, [...chain, text], chainKey(key, text));
  };
  for (const root of roots) for (const text of texts) visit(root, [text], chainKey(root, text));
  t.equal(seen.size, roots.length * (texts.length + texts.length ** 2 + texts.length ** 3), 'one key per chain');
});

t.test('a short chain is its own text, a long one its digest; chains sharing commands share keys', async (t) => {
  const root = rootKey('import Mathlib');
  const [a, b] = chainKeys(root, ['def a := 1', 'def b := 2']);
  t.equal(a, `${root}\u000010\u0000def a := 1`);
  t.equal(b, `${a}\u000010\u0000def b := 2`);
  t.equal(chainKeys(root, ['def a := 1', 'def c := 3'])[0], a, 'the shared first command, the same key');
  const long = 'x'.repeat(INLINE_CHAIN_KEY_CHARS);
  const [l, after] = chainKeys(root, [long, 'def a := 1']);
  t.match(l, HEX64, 'past the bound: the digest');
  t.equal(after, `${l}\u000010\u0000def a := 1`, 'after a digest, a short step is text again');
  for (const k of chainKeys(
    root,
    Array.from({ length: 40 }, (_, i) => `def a${i} := ${i}`),
  ))
    t.ok(k.length <= INLINE_CHAIN_KEY_CHARS, 'no key is longer than the bound');
});
