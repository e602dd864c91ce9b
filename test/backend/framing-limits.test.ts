/** The REPL stdout decoder: linear in its input however it is chunked, and bounded. */
import t from 'tap';
import { FramingError, ResponseDecoder } from '../../src/backend/protocol/framing.ts';

/**
 * Counts the characters `indexOf('\n\n')` searches and `join` produces while installed: the
 * decoder's work in operations (the old decoder searched the whole pending text again per chunk).
 */
function countScans(): { searched: number; joined: number; restore: () => void } {
  const indexOf = String.prototype.indexOf;
  const join = Array.prototype.join;
  const c = {
    searched: 0,
    joined: 0,
    restore: () => {
      String.prototype.indexOf = indexOf;
      Array.prototype.join = join;
    },
  };
  String.prototype.indexOf = function (this: string, search: string, from?: number) {
    if (search === '\n\n') c.searched += this.length - (from ?? 0);
    return indexOf.call(this, search, from);
  };
  Array.prototype.join = function (this: unknown[], sep?: string) {
    const out = join.call(this, sep);
    c.joined += out.length;
    return out;
  };
  return c;
}

t.test('responses split at every possible point, the blank line straddling chunks included', async (t) => {
  const text = '{"env": 0}\n\n{"env": 1,\n "messages": []}\n\n';
  for (let cut = 0; cut <= text.length; cut++) {
    const d = new ResponseDecoder();
    const got = [...d.push(text.slice(0, cut)), ...d.push(text.slice(cut))];
    t.same(got, [{ env: 0 }, { env: 1, messages: [] }], `cut at ${cut}`);
  }
});

t.test('64 MiB without a blank line: fails past the cap, each character scanned once (old: 21.5 s)', async (t) => {
  const d = new ResponseDecoder(16 * 1024 * 1024);
  const chunk = `{"x": "${'a'.repeat(64 * 1024 - 8)}`;
  // The work counted, not timed: characters searched for the blank line and joined, and chunks read.
  const scan = countScans();
  let err: unknown;
  let pushed = 0;
  let offered = 0;
  try {
    for (let i = 0; i < 1024; i++) {
      const c = i === 0 ? chunk : 'a'.repeat(64 * 1024);
      offered += c.length;
      pushed++;
      d.push(c);
    }
  } catch (e) {
    err = e;
  } finally {
    scan.restore();
  }
  t.ok(
    err instanceof FramingError && err.tooLarge,
    'a response past the cap is a FramingError (the process is then killed)',
  );
  t.match((err as Error).message, /exceeds the limit of 16777216 characters/);
  t.equal(pushed, 257, 'it fails at the chunk that crosses the cap (16 MiB in 64 KiB chunks), reading no further');
  t.ok(scan.searched <= offered, `searched ${scan.searched} characters for ${offered} received: each once`);
  t.equal(scan.joined, 0, 'no partial response joined while it grows');
  // Under the cap, a large response split into many chunks decodes whole.
  const big = new ResponseDecoder();
  const body = JSON.stringify({ s: 'b'.repeat(8 * 1024 * 1024) });
  const parts: unknown[] = [];
  for (let i = 0; i < body.length; i += 4096) parts.push(...big.push(body.slice(i, i + 4096)));
  parts.push(...big.push('\n\n'));
  t.equal(parts.length, 1);
});
