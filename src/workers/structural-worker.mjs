// Worker entry when running the sources (plain ESM): registers a TypeScript loader in this
// thread, then loads the task. Loader hooks registered on the main thread do not reach
// Piscina's workers. The project's compile cache (scripts/ts/hooks.mjs, what the tests use)
// costs a thread far less CPU than tsx; tsx is the fallback when it is absent.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const hooks = new URL('../../scripts/ts/hooks.mjs', import.meta.url);
if (existsSync(hooks)) register(hooks);
else (await import('tsx/esm/api')).register();
const task = await import('./structural-task.ts');
export default task.default;
