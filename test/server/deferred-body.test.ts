/**
 * Large bodies are parsed off the main thread: an allowed 100k-entry rename map stalled every
 * other caller for its JSON.parse, validation, cache key and copy to a worker. A body whose
 * largest collection has OFF_THREAD_ENTRIES entries or more reaches the route unparsed; a worker
 * parses, validates and keys it (src/workers/raw-request.ts), with the main thread's own
 * outcomes. Proved by what runs where, not by time: JSON.parse is watched on this thread (a
 * worker thread has a JSON of its own), and the pool counts the bodies it parsed.
 */
import t, { type Test } from 'tap';
import { checkInputLimits, DEFAULT_INPUT_LIMITS } from '../../src/admission/input-limits.ts';
import { rawScan } from '../../src/admission/raw-limits.ts';
import { ResultCache } from '../../src/cache/result-cache.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { OFF_THREAD_ENTRIES } from '../../src/server/deferred-body.ts';
import { deferredMessage } from '../../src/server/stream-deferred.ts';
import { serializeEvent } from '../../src/server/stream-send.ts';
import { MalformedBody, prepareRaw, requestFromRaw } from '../../src/workers/raw-request.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';
import { listenLoopback, openStreamSocket } from '../helpers/loopback.ts';
import { waitFor } from '../backend/fake.ts';

const N = OFF_THREAD_ENTRIES + 10;
const map = (n: number, from = 0) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`Some.Namespace.old${from + i}`, `Some.Namespace.new${i}`]));
const body = (declarations: Record<string, unknown>, content = 'def Some.Namespace.old3 : Nat := 1\n') =>
  JSON.stringify({ content, environment: TEST_ENV, reparse: false, declarations });

/** The main thread's outcome for a body (fastify's parse, then the pipeline's checks), an error or the request. */
function onMainThread(raw: string): unknown {
  try {
    const parsed: unknown = JSON.parse(raw);
    checkInputLimits(parsed, DEFAULT_INPUT_LIMITS);
    return parseToolRequest('rename', parsed);
  } catch (e) {
    return e;
  }
}

t.test('the raw scan counts the largest collection, finished or cut off', async (t) => {
  const raw = body(map(N), `-- ${'x'.repeat(64 * 1024)}\n`);
  t.equal(rawScan(raw, DEFAULT_INPUT_LIMITS).entries, N);
  t.equal(rawScan(raw.slice(0, -2), DEFAULT_INPUT_LIMITS).entries, N, 'broken JSON costs its parse as much');
  t.equal(rawScan(raw.slice(0, 1000), DEFAULT_INPUT_LIMITS).entries, 0, 'a small body is not scanned');
});

t.test('the worker side: the same request, errors and cache key as the main thread', async (t) => {
  const raw = body(map(N));
  t.same(requestFromRaw('rename', raw, DEFAULT_INPUT_LIMITS), onMainThread(raw), 'the same validated request');
  const prepared = prepareRaw('rename', raw, DEFAULT_INPUT_LIMITS);
  const key = new ResultCache(1 << 20).localKey('rename', TEST_ENV, onMainThread(raw) as Record<string, unknown>);
  t.equal(prepared.key, key, "the main thread's cache key");
  t.notOk('declarations' in prepared.request, 'the large map stays on the worker');
  t.equal(prepared.request.environment, TEST_ENV, 'the small fields come back');
  const wrong = body({ ...map(N), bad: 3, '': 'x' });
  const e = (() => {
    try {
      return requestFromRaw('rename', wrong, DEFAULT_INPUT_LIMITS);
    } catch (err) {
      return err;
    }
  })() as { message: string; details: unknown };
  const main = onMainThread(wrong) as { message: string; details: unknown };
  t.equal(e.message, main.message, `the same validation error: ${main.message}`);
  t.same(e.details, main.details);
  t.throws(() => requestFromRaw('rename', raw.slice(0, -2), DEFAULT_INPUT_LIMITS), MalformedBody, 'broken JSON');
  const poisoned = body({ ...map(N), __proto__: { x: 1 } }).replace(
    '"declarations":{',
    '"declarations":{"__proto__":{"x":1},',
  );
  t.throws(() => requestFromRaw('rename', poisoned, DEFAULT_INPUT_LIMITS), new MalformedBody(null), 'poisoning');
});

/**
 * JSON.parse watched on this thread for the test's length: `parsedHere` gets the length of each
 * text in `sent` parsed here (the test reads responses with JSON.parse too, so only those count).
 */
function watchParses(t: Test): { sent: Set<string>; parsedHere: number[] } {
  const sent = new Set<string>();
  const parsedHere: number[] = [];
  const parse = JSON.parse;
  JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
    if (sent.has(text)) parsedHere.push(text.length);
    return parse(text, reviver);
  }) as typeof JSON.parse;
  t.teardown(() => {
    JSON.parse = parse;
  });
  return { sent, parsedHere };
}

t.test('over HTTP a large map is parsed on a worker thread, never by this thread', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  t.equal(await app.warmWorkers(), true, 'the worker threads start');
  const { sent, parsedHere } = watchParses(t);
  const status = async () =>
    (await app.inject({ method: 'GET', url: '/v1/status' })).json<{ workers: { bodiesParsed: number } }>().workers;
  const post = (payload: string) =>
    sent.add(payload) &&
    app.inject({ method: 'POST', url: '/api/v1/rename', payload, headers: { 'content-type': 'application/json' } });

  const raw = body(map(N));
  t.ok(raw.length >= 64 * 1024, `${raw.length} bytes, ${N} entries`);
  const res = await post(raw);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-cache'], 'miss');
  t.match(res.json<{ content: string }>().content, /def Some\.Namespace\.new3 : Nat := 1/, 'renamed');
  t.same(parsedHere, [], 'this thread parsed no large body');
  t.equal((await status()).bodiesParsed, 1, 'the worker parsed it');

  const first = res.json<Record<string, unknown> & { info: { request_id: string } }>();
  t.match(first.info.request_id, /^[0-9a-f-]{36}$/, 'the answer (sent as the text the worker wrote) carries its id');
  const reordered = body(Object.fromEntries(Object.entries(map(N)).reverse()));
  const again = await post(reordered);
  t.equal(again.headers['x-cache'], 'hit', 'the same request written otherwise: a hit by the key the worker made');
  const hit = again.json<Record<string, unknown>>();
  t.same(
    { ...hit, timings: undefined, info: undefined },
    { ...first, timings: undefined, info: undefined },
    'the hit is the stored answer',
  );
  t.same(hit.timings, { total_ms: 0 });

  const wrong = await post(body({ ...map(N), bad: 3 }));
  t.equal(wrong.statusCode, 400);
  t.match(wrong.json(), { error: { code: 'invalid_request', details: [{ field: 'declarations.bad' }] } });
  const broken = await post(raw.slice(0, -2));
  t.equal(broken.statusCode, 400);
  t.match(
    broken.json<{ error: { message: string } }>().error.message,
    /not valid JSON \(.+\); it was sent as application\/json/,
  );
  t.same(parsedHere, [], 'nor the invalid ones');
  t.equal((await status()).bodiesParsed, 4);

  const small = await post(body(map(OFF_THREAD_ENTRIES - 1), `-- ${'x'.repeat(64 * 1024)}\n`));
  t.equal(small.statusCode, 200, 'a large body with a small map');
  t.equal(parsedHere.length, 1, 'is parsed here, as before');
  t.equal((await status()).bodiesParsed, 4);
});

t.test("a worker's answer as text is cached as set() would cache the object", async (t) => {
  const result = { content: 'x', tool_messages: { errors: ['a'] }, timings: { parse_ms: 3, total_ms: 4 } };
  const a = new ResultCache(1 << 20);
  const b = new ResultCache(1 << 20);
  t.equal(a.setSerialized('k', JSON.stringify(result)), b.set('k', result), 'the same stored text');
  const inner = { content: 'x', timings: { total_ms: 4 }, more: { timings: {} } };
  t.equal(a.setSerialized('j', JSON.stringify(inner)), b.set('j', inner), 'timings not last: parsed and stored alike');
});

t.test("on /v1/stream a large request is read on a worker thread too, with the stream's wording", async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  t.equal(await app.warmWorkers(), true, 'the worker threads start');
  await listenLoopback(app);
  const { ws, events } = await openStreamSocket<{
    id: string;
    event: string;
    result?: { content: string };
    error?: { code: string; details: { field: string }[] };
  }>(app);
  t.teardown(() => ws.close());
  const { sent, parsedHere } = watchParses(t);
  const ask = async (id: string, declarations: Record<string, unknown>) => {
    const request = {
      content: 'def Some.Namespace.old3 : Nat := 1\n',
      environment: TEST_ENV,
      reparse: false,
      declarations,
    };
    const text = JSON.stringify({ id, tool: 'rename', request });
    sent.add(text);
    ws.send(text);
    await waitFor(() => events.some((e) => e.id === id && (e.event === 'result' || e.event === 'error')));
    return events.filter((e) => e.id === id).at(-1)!;
  };
  const ok = await ask('big', map(N));
  t.equal(ok.event, 'result');
  t.match(ok.result?.content, /def Some\.Namespace\.new3 : Nat := 1/, 'renamed');
  const wrong = await ask('bad', { ...map(N), bad: 3 });
  t.equal(wrong.error?.code, 'invalid_request');
  t.same(
    wrong.error?.details.map((d) => d.field),
    ['request.declarations.bad'],
    'the field under `request.`',
  );
  t.same(parsedHere, [], 'this thread parsed neither message whole');
  const status = (await app.inject({ method: 'GET', url: '/v1/status' })).json<{ workers: { bodiesParsed: number } }>();
  t.equal(status.workers.bodiesParsed, 2);
});

t.test('a stream message is split only where JSON.parse would read the same request', async (t) => {
  const request = JSON.stringify({ environment: TEST_ENV, declarations: map(N) });
  const split = (text: string) => deferredMessage(Buffer.from(text), DEFAULT_INPUT_LIMITS);
  const ok = split(` {"id":"a","tool":"rename", "request" : ${request} , "x":[1,{"y":"}"}]} `);
  t.equal(ok?.request, request, 'the request text');
  t.equal(ok?.envelope.toString(), ' {"id":"a","tool":"rename", "request" : {} , "x":[1,{"y":"}"}]} ');
  t.equal(split(`{"id":"a","request":{},"request":${request}}`), undefined, 'twice: not split');
  t.equal(split(`{"id":"a","\\u0072equest":{},"request":${request}}`), undefined, 'an escaped key');
  t.equal(split(`{"id":"a","request":${request}`), undefined, 'unterminated');
  t.equal(split(`{"id":"a","request":[${request}]}`), undefined, 'not an object');
  t.equal(split(`{"id":"a","request":${request}} x`), undefined, 'trailing text');
  t.equal(split(`{"id":"a","request":{"content":"${'x'.repeat(70_000)}"}}`), undefined, 'no large collection');
});

t.test('a result already JSON text is spliced into its stream event as JSON.stringify would write it', async (t) => {
  const result = { content: 'a "quoted" \\ text', timings: { total_ms: 1 } };
  const id = 'tricky "result":"\u0000result" id';
  const event = { id, event: 'result' as const, cache: 'miss' as const, result, request_id: 'r' };
  t.equal(serializeEvent({ ...event, result: {} }, 1 << 20, JSON.stringify(result)), JSON.stringify(event));
  t.match(
    JSON.parse(serializeEvent({ ...event, result: {} }, 10, JSON.stringify(result))),
    { id, event: 'error', error: { code: 'response_too_large' } },
    'still bounded',
  );
});
