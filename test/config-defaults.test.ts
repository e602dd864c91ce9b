/** config/default.json is what scripts/config-defaults.ts generates from the schema: one source for every default. */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { DEFAULT_CONFIG_FILE, generatedDefaults } from '../scripts/config-defaults.ts';

t.test('config/default.json holds exactly the schema defaults plus the shipped data', async (t) => {
  const text = readFileSync(DEFAULT_CONFIG_FILE, 'utf8');
  t.equal(text, generatedDefaults(JSON.parse(text)), 'run `npm run config:defaults` after changing a default');
});

t.test('the generator takes defaults from the schema, not from the file', async (t) => {
  const text = readFileSync(DEFAULT_CONFIG_FILE, 'utf8');
  const tampered = JSON.parse(text) as { admission: { retryAfterSeconds: number }; environments: unknown };
  tampered.admission.retryAfterSeconds = 12345;
  t.notMatch(generatedDefaults(tampered), /12345/, 'a default edited by hand in the file is not kept');
});
