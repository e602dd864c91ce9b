/** The REPL stdout decoder: linear in its input however it is chunked, and bounded. */
import t from 'tap';
import { FramingError, ResponseDecoder } from '../../src/backend/protocol/framing.ts';

t.test('responses split at every possible point, the blank line straddling chunks included', async (t) => {
  const text = '{"env": 0}\n\n{"env": 1,\n "messages": []}\n\n';
  for (let cut = 0; cut <= text.length; cut++) {
    const d = new ResponseDecoder();
    const got = [...d.push(text.slice(0, cut)), ...d.push(text.slice(cut))];
    t.same(got, [{ env: 0 }, { env: 1, messages: [] }], `cut at ${cut}`);
  }
});

t.test('64 MiB without a blank line: fails past the cap, in time linear in the bytes (old: 21.5 s)', async (t) => {
  const d = new ResponseDecoder(16 * 1024 * 1024);
  const chunk = `{"x": "${'a'.repeat(64 * 1024 - 8)}`;
  const t0 = performance.now();
  let err: unknown;
  try {
    for (let i = 0; i < 1024; i++) d.push(i === 0 ? chunk : 'a'.repeat(64 * 1024));
  } catch (e) {
    err = e;
  }
  const ms = performance.now() - t0;
  t.ok(
    err instanceof FramingError && err.tooLarge,
    'a response past the cap is a FramingError (the process is then killed)',
  );
  t.match((err as Error).message, /exceeds the limit of 16777216 characters/);
  t.ok(ms < 5_000, `${Math.round(ms)} ms`);
  // Under the cap, a large response split into many chunks decodes whole.
  const big = new ResponseDecoder();
  const body = JSON.stringify({ s: 'b'.repeat(8 * 1024 * 1024) });
  const parts: unknown[] = [];
  for (let i = 0; i < body.length; i += 4096) parts.push(...big.push(body.slice(i, i + 4096)));
  parts.push(...big.push('\n\n'));
  t.equal(parts.length, 1);
});
