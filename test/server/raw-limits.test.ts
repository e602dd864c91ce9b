/**
 * Issue 23, item 7: input limits counted on the raw body text, before JSON.parse builds the
 * objects (an 800k-entry rename map cost 5.6 s of main thread before its 400). The raw count
 * refuses with the very error the parsed-body check raises; through HTTP, a body over a limit
 * is refused without being parsed at all.
 */
import t from 'tap';
import { checkInputLimits, DEFAULT_INPUT_LIMITS } from '../../src/admission/input-limits.ts';
import { RAW_SCAN_FROM_CHARS, rawLimitError } from '../../src/admission/raw-limits.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';

const limits = { ...DEFAULT_INPUT_LIMITS, names: 10, indices: 12, renameEntries: 10, documents: 3 };
/** Padding that makes a body large enough to be scanned, with the characters a scanner could trip on. */
const pad = `"x \\" ] } [ { , \\\\"`.padEnd(RAW_SCAN_FROM_CHARS, ' ');

function parsedError(text: string): unknown {
  try {
    checkInputLimits(JSON.parse(text), limits);
    return undefined;
  } catch (e) {
    return e;
  }
}

const bodies: Record<string, string> = {
  'names over': `{"content":${JSON.stringify(pad)},"names":[${'"a",'.repeat(11)}"b"]}`,
  'names at the limit': `{"content":${JSON.stringify(pad)},"names":[${'"a",'.repeat(9)}"b"]}`,
  'indices over, nested values': `{"indices":[${'[1,{"a":[2,3]}],'.repeat(12)}0],"content":${JSON.stringify(pad)}}`,
  'declarations over': `{"declarations":{${Array.from({ length: 11 }, (_, i) => `"a${i}":"b,}"`).join(',')}},"p":${JSON.stringify(pad)}}`,
  'declarations at the limit': `{"declarations":{${Array.from({ length: 10 }, (_, i) => `"a${i}":"b"`).join(',')}},"p":${JSON.stringify(pad)}}`,
  'other list over the largest limit': `{"repairs":[${'1,'.repeat(12)}1],"p":${JSON.stringify(pad)}}`,
  'documents over': `{"documents":["a","b","c","d"],"p":${JSON.stringify(pad)}}`,
  'empty lists': `{"names":[ ],"declarations":{},"p":${JSON.stringify(pad)}}`,
  'too many fields': `{${Array.from({ length: 101 }, (_, i) => `"f${i}":1`).join(',')},"p":${JSON.stringify(pad)}}`,
};

t.test('the raw count refuses exactly what the parsed-body check refuses, with the same error', async (t) => {
  for (const [name, text] of Object.entries(bodies)) {
    t.ok(text.length >= RAW_SCAN_FROM_CHARS, `${name}: large enough to be scanned`);
    const parsed = parsedError(text) as { message?: string; details?: unknown } | undefined;
    const raw = rawLimitError(text, limits);
    t.equal(raw?.message, parsed?.message, `${name}: ${parsed?.message ?? 'accepted'}`);
    t.same(raw?.details, parsed?.details);
  }
});

t.test('small bodies, non-objects and broken JSON are left to the parser', async (t) => {
  t.equal(rawLimitError(`{"names":[${'1,'.repeat(20)}1]}`, limits), undefined, 'below the scanned size');
  t.equal(rawLimitError(`[${'1,'.repeat(RAW_SCAN_FROM_CHARS)}1]`, limits), undefined, 'a top-level list');
  t.equal(rawLimitError(`x{"names":[${'1,'.repeat(RAW_SCAN_FROM_CHARS)}1]}`, limits), undefined, 'not JSON');
});

t.test('over HTTP an 800k-entry rename map is refused before JSON.parse builds it', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const entries = Array.from({ length: 800_000 }, (_, i) => `"x${i}":"y${i}"`).join(',');
  // Broken JSON after the map: parsed first, this would be malformed_json; counted first, the limit error.
  const body = `{"content":"def a : Nat := 1\\n","environment":"${TEST_ENV}","declarations":{${entries}} ,,, not json`;
  const res = await app.inject({ method: 'POST', url: '/api/v1/rename', payload: body });
  t.equal(res.statusCode, 400);
  t.equal(res.json().error.code, 'invalid_request');
  t.match(res.json().error.message, /declarations.*more than 100000 entries \(limits\.renameEntries\)/);
  const ok = `{"content":"def a : Nat := 1\\n","environment":"${TEST_ENV}","reparse":false,"declarations":{"a":"b"},"p":${JSON.stringify(pad)}}`;
  const res2 = await app.inject({ method: 'POST', url: '/api/v1/rename', payload: ok });
  t.equal(res2.statusCode, 400, 'a large body within the limits is parsed and validated as before');
  t.match(res2.json().error.message, /p/, 'its unknown field is named by validation');
});
