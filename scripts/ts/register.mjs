// `node --import ./scripts/ts/register.mjs file.ts`: runs TypeScript through the compile cache
// (hooks.mjs). Used by the tests (package.json "tap"."node-arg") instead of tsx.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
