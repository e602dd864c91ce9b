/**
 * A destroyed structural pool starts no threads (src/workers/structural-pool.ts): the daemon's warm-up timer may fire
 * while it drains, and its exit while worker threads started aborted the process (SIGABRT instead of exit 0).
 */
import t from 'tap';
import { StructuralPool } from '../../src/workers/structural-pool.ts';

t.test('after destroy, warm() and up start no thread', async (t) => {
  const pool = new StructuralPool({ threads: 1 });
  await pool.destroy();
  t.equal(await pool.warm(), false);
  t.equal(pool.up, false);
  t.equal(pool.stats().threads, 0, 'no thread started');
});
