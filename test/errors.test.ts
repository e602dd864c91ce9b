import { readFileSync } from 'node:fs';
import t from 'tap';
import { ERROR_CODES, ServiceError } from '../src/errors.ts';

t.test('docs/errors.md lists every code with its status', async (t) => {
  const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  for (const [code, e] of Object.entries(ERROR_CODES)) {
    t.match(doc, new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${e.status}\\s*\\|`), `${code} (${e.status}) documented`);
  }
});

t.test('only transient conditions use the statuses clients retry (429, 503)', async (t) => {
  for (const [code, e] of Object.entries(ERROR_CODES)) {
    t.equal(e.retryable, e.status === 429 || e.status === 503, `${code}`);
  }
  const err = new ServiceError('queue_full', 'busy', { retryAfter: 2 });
  t.same(err.toBody(), { error: { code: 'queue_full', message: 'busy' } });
  t.equal(new ServiceError('overloaded', 'shutting down').retryAfter, 2, 'a transient error always carries Retry-After');
  t.equal(new ServiceError('environment_unavailable', 'no Lean').retryAfter, undefined, 'a permanent one never does');
});

t.test('an environment that cannot run Lean is permanent: a status neither client retries', async (t) => {
  const e: { status: number; retryable: boolean } = ERROR_CODES.environment_unavailable;
  t.equal(e.status, 409);
  t.equal(e.retryable, false);
  t.notOk([429, 503].includes(e.status), 'the AXLE client retries exactly 429 and 503 (AxleRateLimitedError, AxleIsUnavailable)');
  t.ok(e.status >= 400 && e.status < 500 && e.status !== 400, 'a 4xx other than 400: the AXLE client does not call it a bug (5xx) or bad input (400)');
});
