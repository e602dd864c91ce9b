// Worker entry (plain ESM): registers the TypeScript loader in this thread, then loads the task.
// Loader hooks registered by `--import tsx` on the main thread do not reach Piscina's workers.
import { register } from 'tsx/esm/api';

register();
const task = await import('./structural-task.ts');
export default task.default;
