/**
 * The per-request metrics (requests by tool and status, latency by tool and cache outcome)
 * recorded with plain arithmetic on the request path and formatted for prom-client only when
 * `/metrics` is scraped. prom-client's labelled children hash their label object on every
 * `inc`/`observe`; with a histogram of 19 buckets that was a visible share of a cache hit's CPU. The
 * scrape output is the same as prom-client's Counter and Histogram write (same names, label
 * order, cumulative `le` buckets, `_sum`, `_count`).
 *
 * A label never comes from input: a tool name outside the closed set the series is given
 * (a 404 for `/api/v1/<anything>`) is counted as `other`, so the exposition stays the same size
 * whatever paths callers send (one series per known tool × status × cache outcome).
 */
import type { Registry } from 'prom-client';

interface Series {
  tool: string;
  status: string;
  statusCode: number;
  cache: string;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above every bound (+Inf). */
  perBucket: number[];
}

/** What prom-client's registry reads from a metric (the fields its text format uses). */
interface ScrapeValue {
  value: number;
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  metricName?: string;
}

/** The one label of every tool name outside the known set. */
export const OTHER = 'other';

export class RequestSeries {
  readonly #series = new Map<string, Series>();
  readonly #bounds: readonly number[];
  readonly #known: (tool: string) => boolean;
  #last: Series | undefined;

  /** `known`: the tool names counted under their own label; any other name is `other`. */
  constructor(bounds: readonly number[], known: (tool: string) => boolean) {
    this.#bounds = bounds;
    this.#known = known;
  }

  record(tool: string, status: number, cache: string | undefined, seconds: number): void {
    const s = this.#seriesOf(tool, status, cache ?? 'none');
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < this.#bounds.length && seconds > this.#bounds[i]!) i++;
    s.perBucket[i]!++;
  }

  /**
   * The series of these labels. Consecutive requests are mostly alike (a run of hits of one
   * tool), so the last series is checked first: no key string built per request.
   */
  #seriesOf(name: string, status: number, cache: string): Series {
    const last = this.#last;
    // A name equal to the last label is that label (a known tool, or `other` itself).
    if (last && last.tool === name && last.statusCode === status && last.cache === cache) return last;
    const tool = this.#known(name) ? name : OTHER;
    const id = `${tool}\u0000${status}\u0000${cache}`;
    let s = this.#series.get(id);
    if (!s) {
      s = { tool, status: String(status), statusCode: status, cache, count: 0, sum: 0, perBucket: [] };
      for (let i = 0; i <= this.#bounds.length; i++) s.perBucket.push(0);
      this.#series.set(id, s);
    }
    this.#last = s;
    return s;
  }

  /** Registers a counter of requests by tool and status. */
  registerCounter(registry: Registry, name: string, help: string): void {
    const values = (): ScrapeValue[] => {
      const by = new Map<string, ScrapeValue>();
      for (const s of this.#series.values()) {
        const id = `${s.tool}\u0000${s.status}`;
        const v = by.get(id);
        if (v) v.value += s.count;
        else by.set(id, { value: s.count, labels: { tool: s.tool, status: s.status } });
      }
      return [...by.values()];
    };
    register(registry, { name, help, type: 'counter', values });
  }

  /** Registers a histogram of latency (seconds) by tool and cache outcome. */
  registerHistogram(registry: Registry, name: string, help: string): void {
    const values = (): ScrapeValue[] => {
      const by = new Map<string, { labels: Record<string, string>; count: number; sum: number; per: number[] }>();
      for (const s of this.#series.values()) {
        const id = `${s.tool}\u0000${s.cache}`;
        let v = by.get(id);
        if (!v) {
          v = { labels: { tool: s.tool, cache: s.cache }, count: 0, sum: 0, per: s.perBucket.map(() => 0) };
          by.set(id, v);
        }
        v.count += s.count;
        v.sum += s.sum;
        s.perBucket.forEach((n, i) => (v.per[i]! += n));
      }
      const out: ScrapeValue[] = [];
      for (const v of by.values()) {
        let acc = 0;
        this.#bounds.forEach((le, i) => {
          acc += v.per[i]!;
          out.push({ value: acc, labels: { le }, sharedLabels: v.labels, metricName: `${name}_bucket` });
        });
        out.push({ value: v.count, labels: { le: '+Inf' }, sharedLabels: v.labels, metricName: `${name}_bucket` });
        out.push({ value: v.sum, labels: {}, sharedLabels: v.labels, metricName: `${name}_sum` });
        out.push({ value: v.count, labels: {}, sharedLabels: v.labels, metricName: `${name}_count` });
      }
      return out;
    };
    register(registry, { name, help, type: 'histogram', values });
  }
}

/** A metric object as prom-client's registry reads it (`get` is called at scrape time). */
function register(
  registry: Registry,
  m: { name: string; help: string; type: 'counter' | 'histogram'; values: () => ScrapeValue[] },
): void {
  const metric = {
    name: m.name,
    help: m.help,
    type: m.type,
    aggregator: 'sum',
    get: async () => ({ name: m.name, help: m.help, type: m.type, aggregator: 'sum', values: m.values() }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}
