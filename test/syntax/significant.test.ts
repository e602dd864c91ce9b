/** The token lookup by offset that per-declaration work relies on (a binary search over the significant tokens). */
import t from 'tap';
import { firstTokenFrom } from '../../src/syntax/significant.ts';
import { parseSource } from '../../src/syntax/source.ts';

t.test('firstTokenFrom agrees with a scan from the first token at every offset', async (t) => {
  const src = 'namespace A\n/-- doc -/\ntheorem t (x : Nat) : x = x := by\n  rfl -- done\nend A\n';
  const { sig } = parseSource(src);
  t.ok(sig.length > 10);
  for (let offset = 0; offset <= src.length + 1; offset++) {
    const scanned = sig.start.findIndex((s) => s >= offset);
    t.equal(firstTokenFrom(sig, offset), scanned < 0 ? sig.length : scanned, `offset ${offset}`);
  }
});

t.test('firstTokenFrom on a file with no tokens', async (t) => {
  const { sig } = parseSource('-- only a comment\n');
  t.equal(firstTokenFrom(sig, 0), 0);
  t.equal(sig.length, 0);
});
