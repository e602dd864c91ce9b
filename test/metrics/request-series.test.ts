/** The per-request series (src/metrics/request-series.ts) scrape exactly as prom-client's Counter and Histogram would. */
import { Counter, Histogram, Registry } from 'prom-client';
import t from 'tap';
import { RequestSeries } from '../../src/metrics/request-series.ts';

const BOUNDS = [0.001, 0.01, 0.1, 1];
const OBSERVED: [string, number, string | undefined, number][] = [
  ['check', 200, 'hit', 0.0004],
  ['check', 200, 'hit', 0.001],
  ['check', 200, 'miss', 0.5],
  ['check', 400, undefined, 0.02],
  ['merge', 200, 'miss', 7],
  ['check', 200, 'hit', 0.05],
];

t.test('same text as prom-client for the same observations', async (t) => {
  const ours = new Registry();
  const series = new RequestSeries(BOUNDS);
  series.registerCounter(ours, 'reqs_total', 'requests');
  series.registerHistogram(ours, 'latency_seconds', 'latency');

  const theirs = new Registry();
  const c = new Counter({ name: 'reqs_total', help: 'requests', labelNames: ['tool', 'status'], registers: [theirs] });
  const h = new Histogram({
    name: 'latency_seconds',
    help: 'latency',
    labelNames: ['tool', 'cache'],
    buckets: BOUNDS,
    registers: [theirs],
  });
  for (const [tool, status, cache, s] of OBSERVED) {
    series.record(tool, status, cache, s);
    c.inc({ tool, status: String(status) });
    h.observe({ tool, cache: cache ?? 'none' }, s);
  }
  t.equal(await ours.metrics(), await theirs.metrics());
});
