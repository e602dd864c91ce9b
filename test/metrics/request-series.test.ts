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
  const series = new RequestSeries(BOUNDS, () => true);
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

t.test('a tool name outside the known set is counted as `other`, one series whatever the names', async (t) => {
  const reg = new Registry();
  const series = new RequestSeries(BOUNDS, (tool) => tool === 'check');
  series.registerCounter(reg, 'reqs_total', 'requests');
  series.registerHistogram(reg, 'latency_seconds', 'latency');
  series.record('check', 200, 'hit', 0.001);
  for (let i = 0; i < 500; i++) series.record(`nope-${i}`, 404, undefined, 0.001);
  series.record('other', 404, undefined, 0.001);
  const text = await reg.metrics();
  t.notMatch(text, /nope-/, 'no label value taken from a name');
  t.match(text, /reqs_total\{tool="other",status="404"\} 501/);
  t.match(text, /reqs_total\{tool="check",status="200"\} 1/);
  t.match(text, /latency_seconds_count\{tool="other",cache="none"\} 501/);
});
