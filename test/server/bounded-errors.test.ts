/**
 * Issue 23, items 1, 2 and 7: no message can end the daemon, and a validation error is
 * bounded whatever the input. Sizes are those that failed before: a 6.8 MB stream message of
 * 3.4 million numbers in `names` (its error reply outgrew JavaScript's longest string and the
 * uncaught RangeError ended the process), and 100k wrong-typed items within the list limit
 * (one detail per item: ~80× the input).
 */
import t, { type Test } from 'tap';
import { waitFor } from '../backend/fake.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';
import { listenLoopback, openStreamSocket } from '../helpers/loopback.ts';
import { MAX_REPORTED_ISSUES, parseToolRequest } from '../../src/contract/validate.ts';
import { ServiceError } from '../../src/errors.ts';
import { errorEvent, serializeEvent } from '../../src/server/stream-send.ts';

/** A body of `n` numbers in `names` (each one a validation problem), as JSON text. */
const numbersBody = (n: number) =>
  `{"content":"theorem a : True := trivial","environment":"${TEST_ENV}","reparse":false,"names":[${'1,'.repeat(n - 1)}1]}`;

async function openStream(t: Test) {
  const app = await makeApp();
  t.teardown(() => app.close());
  await listenLoopback(app);
  const { ws, texts: replies } = await openStreamSocket(app);
  t.teardown(() => ws.close());
  /** Sends raw text and waits for the final event of `id`; returns its text. */
  const ask = async (text: string, id: string) => {
    const before = replies.length;
    ws.send(text);
    const final = () =>
      replies.slice(before).find((r) => r.includes(`"id":"${id}"`) && /"event":"(result|error)"/.test(r));
    await waitFor(() => final() !== undefined);
    return final()!;
  };
  return { ask };
}

t.test('stream: a 6.8 MB message of 3.4M wrong items gets a small error and the daemon lives', async (t) => {
  const { ask } = await openStream(t);
  const msg = `{"id":"big","tool":"theorem2sorry","request":${numbersBody(3_400_000)}}`;
  t.ok(msg.length > 6_800_000, `the message is ${msg.length} bytes`);
  const reply = await ask(msg, 'big');
  t.ok(reply.length < 4_096, `the error is ${reply.length} bytes`);
  const e = JSON.parse(reply) as { error: { code: string; message: string; details: { field: string }[] } };
  t.equal(e.error.code, 'invalid_request');
  t.equal(e.error.details[0]!.field, 'request.names', 'refused by the list limit, counted before validation');
  t.match(e.error.message, /3400000 entries; the limit is 100000/);
  const after = await ask(
    JSON.stringify({
      id: 'after',
      tool: 'theorem2sorry',
      request: { content: 'theorem a : True := trivial', environment: TEST_ENV, reparse: false },
    }),
    'after',
  );
  t.match(after, /"event":"result"/, 'the same socket still serves');
});

t.test('stream: 100k wrong items within the limit: a few problems listed, the rest counted', async (t) => {
  const { ask } = await openStream(t);
  const reply = await ask(`{"id":"many","tool":"theorem2sorry","request":${numbersBody(100_000)}}`, 'many');
  t.ok(reply.length < 4_096, `the error is ${reply.length} bytes (was one detail per item)`);
  const e = JSON.parse(reply) as { error: { message: string; details: { field: string }[] } };
  t.equal(e.error.details.length, MAX_REPORTED_ISSUES);
  t.equal(e.error.details[0]!.field, 'request.names.0');
  t.match(e.error.message, new RegExp(`and ${100_000 - MAX_REPORTED_ISSUES} more problems$`));
});

t.test('HTTP: a 2.9 MB body of wrong items is a small 400 in the envelope', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  for (const n of [100_000, 1_450_000]) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/theorem2sorry', payload: numbersBody(n) });
    t.equal(res.statusCode, 400);
    t.ok(res.body.length < 4_096, `${n} items: the error is ${res.body.length} bytes`);
    const e = res.json<{ error: { code: string; details: unknown[] } }>();
    t.equal(e.error.code, 'invalid_request');
    t.ok(e.error.details.length <= MAX_REPORTED_ISSUES);
  }
});

t.test('large lists and maps: checked by the fast path with the same outcome as zod', async (t) => {
  const reject = (tool: 'rename' | 'theorem2sorry', body: Record<string, unknown>) => {
    try {
      parseToolRequest(tool, { content: 'x', environment: 'e', ...body });
    } catch (e) {
      if (e instanceof ServiceError) return e;
    }
    throw new Error('expected a rejection');
  };
  const bigMap = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`a${i}`, `b${i}`]));
  const ok = parseToolRequest('rename', { content: 'x', environment: 'e', declarations: bigMap });
  t.equal(ok.declarations, bigMap, 'a valid large map is kept as sent');
  t.equal(ok.timeout_seconds, 120, 'and the rest of the body still gets its defaults');
  const bad = reject('rename', { declarations: { ...bigMap, a7: '', a9: 3 } });
  t.same(
    bad.details!.map((d) => d.field),
    ['declarations.a7', 'declarations.a9'],
  );
  t.match(bad.message, /new names must not be empty/);
  const mixed = reject('theorem2sorry', { names: [...Array(300).fill('n'), 4], reparse: 'no' });
  t.same(
    mixed.details!.map((d) => d.field),
    ['names.300', 'reparse'],
    'a large field and a small one both reported',
  );
  const few = reject('theorem2sorry', { names: [1, 2] });
  t.same(
    few.details!.map((d) => d.field),
    ['names.0', 'names.1'],
    'small lists: zod alone',
  );
});

t.test('every stream event is serialised within its bound, never thrown', async (t) => {
  const big = serializeEvent(
    { id: 'r', event: 'result', cache: 'miss', result: { content: 'x'.repeat(5_000) } },
    1_000,
  );
  const e = JSON.parse(big) as { id: string; event: string; error: { code: string; message: string } };
  t.same([e.id, e.event, e.error.code], ['r', 'error', 'response_too_large'], 'too large: an error for the same id');
  t.match(e.error.message, /limit of 1000 bytes/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const broken = JSON.parse(serializeEvent({ id: 'c', event: 'result', cache: 'miss', result: cyclic }, 1_000)) as {
    error: { code: string };
  };
  t.equal(broken.error.code, 'response_too_large', 'unserialisable: answered, not thrown');
  const longError = errorEvent(
    'x',
    new ServiceError('invalid_request', 'y'.repeat(1_000_000), {
      details: Array.from({ length: 1_000 }, () => ({ field: 'f'.repeat(10_000), message: 'm' })),
    }),
  );
  t.ok(JSON.stringify(longError).length < 10_000, 'an error event is clipped whatever the error holds');
});
