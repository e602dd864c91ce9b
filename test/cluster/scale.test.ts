/**
 * The work stream stays bounded at any number of headers (issue 24: a consumer per header
 * seen passed JetStream's first page of 256 and stranded jobs; idle polling grew with it).
 * A worker whose pools hold 10, then 1,000 distinct headers warm, against a real
 * nats-server: the consumers stay within environments × (buckets + 2), JetStream API calls
 * per second of the idle worker do not grow, and a job for the first header is answered at
 * once on its warm route. Skips, saying why, when nats-server is not installed.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { pino } from 'pino';
import t from 'tap';
import { ClusterNode } from '../../src/cluster/node.ts';
import { EnvironmentRegistry } from '../../src/envs/registry.ts';
import { testConfig, testProbe, TEST_ENV } from '../helpers.ts';
import { scriptedRunner } from '../tools/runner.ts';
import { clusterApp, clusterSettings, postCheck, reportingCheck, until } from './fixtures.ts';
import { natsServerForFile, natsServerOrSkip } from './nats-for-tests.ts';

const bin = natsServerOrSkip('the scale test');
if (bin) {
  const nats = natsServerForFile(bin);

  /** A worker whose session pools report `headers` distinct headers warm (a stand-in for the backend's stats). */
  async function worker(prefix: string, headers: number): Promise<ClusterNode> {
    const config = testConfig({ cluster: { ...clusterSettings(nats.url, `w-${prefix}`, 'worker'), prefix } });
    const warm = {
      [TEST_ENV]: {
        headers: Object.fromEntries(
          Array.from({ length: headers }, (_, i) => [`import H${i}`, { warm: 1, busy: 0, starting: 0 }]),
        ),
      },
    };
    return ClusterNode.start({
      config: config.cluster,
      leanLimits: config.lean,
      registry: new EnvironmentRegistry(config.environments, { ttlMs: 60_000, probe: testProbe }),
      tools: { check: reportingCheck(`w-${prefix}`, { count: 0, contents: [] }, 0, undefined, true) },
      lean: scriptedRunner(() => ({})),
      log: pino({ level: 'silent' }),
      pools: () => warm,
    });
  }

  t.test('1,000 headers: bounded consumers, flat idle API load, the first header answered at once', async (t) => {
    const nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    t.teardown(() => nc.close());
    const apiTotal = async () => (await jsm.getAccountInfo()).api.total;
    const consumers = async (stream: string) => {
      let n = 0;
      for await (const _ of jsm.consumers.list(stream)) n++;
      return n;
    };
    /** JetStream API calls per second while only this idle worker runs (2 s window, after it settled). */
    const idleRate = async (prefix: string, headers: number) => {
      const w = await worker(prefix, headers);
      await until(
        () => (w.worker!.stats().warm as string[]).length === headers,
        15_000,
        `${headers} headers advertised`,
      );
      const before = await apiTotal();
      await new Promise((r) => setTimeout(r, 2000));
      const rate = ((await apiTotal()) - before - 1) / 2;
      return { w, rate, consumers: await consumers(`${prefix.toUpperCase()}_WORK`) };
    };

    const small = await idleRate('s10', 10);
    await small.w.close();
    const large = await idleRate('s1000', 1000);
    t.teardown(() => large.w.close());
    // lean-test: any, plain and at most 16 buckets; lean-missing (no Lean): plain.
    t.ok(large.consumers <= 19, `1,000 headers, ${large.consumers} consumers (bounded by environments × buckets)`);
    t.ok(small.consumers <= large.consumers, `10 headers: ${small.consumers} consumers`);
    t.ok(
      large.rate <= small.rate + 1,
      `idle JetStream API calls/s: ${small.rate} at 10 headers, ${large.rate} at 1,000 (no growth)`,
    );

    const front = await clusterApp(nats.url, 'f', 'front', { prefix: 's1000' });
    t.teardown(() => front.close());
    await until(
      () => (front.cluster!.status().workers as { warm: string[] }[]).some((w) => w.warm.length === 1000),
      10_000,
      'the front to see the warm headers',
    );
    const r = await front.inject(
      postCheck('import H0\n\ntheorem first : True := trivial\n', TEST_ENV, {
        ignore_imports: false,
        timeout_seconds: 30,
      }),
    );
    t.equal(r.statusCode, 200);
    t.match(
      (await front.inject({ method: 'GET', url: '/metrics' })).body,
      /lean_tool_cluster_jobs_total\{route="warm"\} 1/,
      "on its warm header's bucket",
    );
  });
}
