/**
 * The fallbacks modules keep for when no configuration is passed (tests, the client, a tool
 * called on its own) are the schema's defaults: each constant is compared with the value
 * `configSchema` gives the setting, so a default changed in one place fails here until both agree.
 */
import t from 'tap';
import { DEFAULT_INPUT_LIMITS } from '../src/admission/input-limits.ts';
import { DEFAULT_OPEN_BEARERS } from '../src/admission/keys.ts';
import { configSchema } from '../src/config.ts';
import { DEFAULT_COMPARATOR_MEMORY_MB } from '../src/contract/tools.ts';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../src/errors.ts';
import { DEFAULT_SHARED_LINKS } from '../src/server/shared-links.ts';
import { DEFAULT_STREAM_LIMITS } from '../src/server/stream.ts';

const defaults = configSchema.parse({});

t.test('each fallback constant equals the setting it stands for', async (t) => {
  t.same(DEFAULT_STREAM_LIMITS, defaults.server.stream, 'server.stream');
  t.match(defaults.limits, DEFAULT_INPUT_LIMITS, 'limits (the fields the constant has)');
  t.equal(DEFAULT_RETRY_AFTER_SECONDS, defaults.admission.retryAfterSeconds, 'admission.retryAfterSeconds');
  t.equal(DEFAULT_OPEN_BEARERS, defaults.admission.openModeBearers, 'admission.openModeBearers');
  t.same(DEFAULT_SHARED_LINKS, defaults.sharedLinks, 'sharedLinks');
  t.equal(DEFAULT_COMPARATOR_MEMORY_MB, defaults.comparator.defaultMemoryMb, 'comparator.defaultMemoryMb');
});
