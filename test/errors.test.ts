import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { LeanStartError, PoolClosedError } from '../src/backend/errors.ts';
import { ERROR_CODES, fillTemplate, ServiceError, serviceError } from '../src/errors.ts';
import { toServiceError } from '../src/server/error-handler.ts';

/** The public error codes; a new one is a contract change, made here and in docs/errors.md together. */
const CODE_COUNT = 22;

t.test('docs/errors.md and the error table list the same codes, with the same statuses', async (t) => {
  const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  const documented = [...doc.matchAll(/^\|\s*`(\w+)`\s*\|\s*(\d{3})\s*\|/gm)].map(
    (m) => [m[1]!, Number(m[2])] as const,
  );
  t.equal(Object.keys(ERROR_CODES).length, CODE_COUNT, 'codes in src/errors.ts');
  t.equal(documented.length, CODE_COUNT, 'codes in docs/errors.md');
  for (const [code, e] of Object.entries(ERROR_CODES)) {
    t.same(
      documented.find(([c]) => c === code),
      [code, e.status],
      `${code} (${e.status}) documented`,
    );
  }
  for (const [code] of documented) t.ok(Object.hasOwn(ERROR_CODES, code), `documented ${code} exists`);
});

t.test('only transient conditions use the statuses clients retry (429, 503)', async (t) => {
  for (const [code, e] of Object.entries(ERROR_CODES)) {
    t.equal(e.retryable, e.status === 429 || e.status === 503, `${code}`);
    t.ok(e.status !== 200 || 'axleType' in e, `${code}: a 200 error is one of AXLE's deterministic Lean failures`);
  }
  const err = new ServiceError('queue_full', 'busy', { retryAfter: 2 });
  t.same(err.toBody(), { error: { code: 'queue_full', message: 'busy' } });
  t.equal(
    new ServiceError('overloaded', 'shutting down').retryAfter,
    2,
    'a transient error always carries Retry-After',
  );
  t.equal(new ServiceError('environment_unavailable', 'no Lean').retryAfter, undefined, 'a permanent one never does');
});

t.test('an environment that cannot run Lean is permanent: a status neither client retries', async (t) => {
  const e: { status: number; retryable: boolean } = ERROR_CODES.environment_unavailable;
  t.equal(e.status, 409);
  t.equal(e.retryable, false);
  t.notOk(
    [429, 503].includes(e.status),
    'the AXLE client retries exactly 429 and 503 (AxleRateLimitedError, AxleIsUnavailable)',
  );
  t.ok(
    e.status >= 400 && e.status < 500 && e.status !== 400,
    'a 4xx other than 400: the AXLE client does not call it a bug (5xx) or bad input (400)',
  );
});

t.test('throw sites fill the templates of the table', async (t) => {
  const e = serviceError('queue_full', 'caller', { caller: 'this API key', active: 2, queued: 3 }, { retryAfter: 1 });
  t.same(
    [e.code, e.status, e.retryable, e.retryAfter, e.message],
    ['queue_full', 429, true, 1, 'too many concurrent requests for this API key: 2 active, 3 queued'],
  );
  t.equal(
    serviceError('invalid_request', 'stream_message', { problems: 'id: required' }).message,
    'invalid stream message: id: required; send {id, tool, request} or {id, cancel: true}',
    'literal brace groups stay',
  );
  t.equal(fillTemplate('{a} and {b}', { a: '{b}', b: 1 }), '{b} and 1', 'a filled value is not filled again');
  for (const [code, e] of Object.entries(ERROR_CODES))
    t.ok(Object.keys(e.messages).length > 0, `${code} has a template`);
  // No wording outside the table: every ServiceError in src/ comes from serviceError().
  const root = new URL('../src/', import.meta.url).pathname;
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (
        p.endsWith('.ts') &&
        p !== path.join(root, 'errors.ts') &&
        readFileSync(p, 'utf8').includes('new ServiceError(')
      )
        offenders.push(path.relative(root, p));
    }
  };
  walk(root);
  t.same(offenders, [], 'src/ modules raise errors with serviceError(code, template, params)');
});

t.test("the edge maps the backend pool's errors; a client disconnect is not internal", async (t) => {
  const closed = toServiceError(new PoolClosedError('env-a'));
  t.same([closed.code, closed.status, closed.message], ['overloaded', 503, 'the env-a pool is shutting down']);
  const start = toServiceError(new LeanStartError('env-a', 'lake: not found'));
  t.same(
    [start.code, start.status, start.message],
    ['environment_unavailable', 409, 'Lean failed to start for env-a: lake: not found'],
  );
  t.equal(toServiceError(new Error('boom')).code, 'internal');
  t.equal(serviceError('cancelled', 'client_disconnected').code, 'cancelled');
  t.notOk(new PoolClosedError('x') instanceof ServiceError, 'the pool throws backend errors, not HTTP answers');
});
