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
});
