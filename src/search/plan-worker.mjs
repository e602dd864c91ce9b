// Worker entry of the plan pool when running the sources (plain ESM), as src/workers/structural-worker.mjs:
// registers a TypeScript loader in this thread (loader hooks of the main thread do not reach it), then loads the task.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const hooks = new URL('../../scripts/ts/hooks.mjs', import.meta.url);
if (existsSync(hooks)) register(hooks);
else (await import('tsx/esm/api')).register();
const task = await import('./plan-task.ts');
export default task.default;
