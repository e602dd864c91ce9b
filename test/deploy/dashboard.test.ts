/**
 * The Grafana dashboard (deploy/grafana/lean-tool.json) is built from the daemon's metrics:
 * every metric one of its queries names is one `/metrics` exposes (a histogram's _bucket,
 * _sum and _count included), and the names follow Prometheus's conventions (one prefix,
 * counters end in _total, no double prefix).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { metricsOf } from '../metrics/metrics-double.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');

/** Every series name the daemon can expose (a cluster node's sources included). */
async function exposed(): Promise<Set<string>> {
  const m = metricsOf(() => [{ node: 'w', slots: 1, busy: 0, oldestJobMs: 0 }]);

  const names = new Set<string>();
  for (const metric of await m.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    // prom-client types `type` as a numeric enum; at run time it is the Prometheus type name.
    if ((metric.type as unknown as string) === 'histogram')
      for (const s of ['_bucket', '_sum', '_count']) names.add(metric.name + s);
  }
  return names;
}

t.test('every metric the dashboard queries exists, and the names follow Prometheus conventions', async (t) => {
  const names = await exposed();
  const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'deploy/grafana/lean-tool.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };
  const used = new Set<string>();
  for (const p of dashboard.panels)
    for (const target of p.targets) for (const m of target.expr.matchAll(/\blean_tool_[a-z0-9_]+/g)) used.add(m[0]);
  t.ok(used.size >= 15, `the dashboard names ${used.size} metrics`);
  for (const u of used) t.ok(names.has(u), `${u} is exposed`);
  for (const n of names) {
    t.notMatch(n, /process_process_|lean_tool_.*lean_tool_/, `${n}: no double prefix`);
    t.match(n, /^lean_tool_/, `${n}: one namespace`);
  }
  for (const n of [
    'lean_tool_cluster_live_workers',
    'lean_tool_cluster_free_slots',
    'lean_tool_nats_connected',
    'lean_tool_cluster_claims_held',
    'lean_tool_cluster_worker_busy_slots',
    'lean_tool_cluster_worker_oldest_job_seconds',
    'lean_tool_cluster_queue_wait_seconds',
  ])
    t.ok(names.has(n), `gauge ${n}`);
});
