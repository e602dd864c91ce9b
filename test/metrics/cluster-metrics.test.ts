/** The per-worker cluster gauges (src/metrics/cluster-metrics.ts): from the live workers' heartbeats, bounded. */
import t from 'tap';
import { WORKER_SERIES_LIMIT } from '../../src/metrics/cluster-metrics.ts';
import { metricsOf } from './metrics-double.ts';

t.test('load and oldest job per live worker; a worker gone leaves no series', async (t) => {
  let workers = [
    { node: 'a', slots: 4, busy: 3, oldestJobMs: 12_500 },
    { node: 'b', slots: 2, busy: 0, oldestJobMs: 0 },
  ];
  const m = metricsOf(() => workers);
  let text = await m.registry.metrics();
  t.match(text, /lean_tool_cluster_worker_busy_slots\{worker="a"\} 3/);
  t.match(text, /lean_tool_cluster_worker_slots\{worker="b"\} 2/);
  t.match(text, /lean_tool_cluster_worker_oldest_job_seconds\{worker="a"\} 12.5/);
  workers = [workers[0]!];
  text = await m.registry.metrics();
  t.notMatch(text, /worker="b"/, 'b left membership: its series are gone');
});

t.test('at most WORKER_SERIES_LIMIT workers are labelled, the busiest kept', async (t) => {
  const many = Array.from({ length: WORKER_SERIES_LIMIT + 50 }, (_x, i) => ({
    node: `w${i}`,
    slots: 1,
    busy: i === WORKER_SERIES_LIMIT + 49 ? 1 : 0,
    oldestJobMs: 0,
  }));
  const text = await metricsOf(() => many).registry.metrics();
  const series = text.split('\n').filter((l) => l.startsWith('lean_tool_cluster_worker_busy_slots{'));
  t.equal(series.length, WORKER_SERIES_LIMIT);
  t.ok(
    series.some((l) => l.includes(`worker="w${WORKER_SERIES_LIMIT + 49}"`)),
    'the busy one kept',
  );
});
