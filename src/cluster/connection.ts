/**
 * One NATS connection per node and the JetStream resources it needs, created if missing
 * (idempotent, so fronts and workers may start in any order): the work-queue stream, the
 * fallback consumer, the shared result cache and the in-flight claims.
 */
import {
  AckPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ClusterConfig } from './config.ts';
import type { DropReporter } from './messages.ts';
import { Names } from './names.ts';
import { JetStreamResources } from './resources.ts';
import type { Log } from '../log.ts';

export interface ClusterConnection {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: Names;
  cache: KV;
  inflight: KV;
  config: ClusterConfig;
  /** Every message dropped at the boundary (invalid JSON or schema) goes here: logged and counted. */
  drop: DropReporter;
  /** The work subjects whose durable consumer is known to exist (created by us or found). */
  ensured: Set<string>;
  /** The stream and buckets above, recreated when NATS lost them (resources.ts). */
  resources: JetStreamResources;
}

const nanos = (ms: number) => Math.round(ms * 1e6);

export async function openCluster(
  config: ClusterConfig,
  name: string,
  drop: DropReporter,
  log: Log,
): Promise<ClusterConnection> {
  const servers = (config.natsUrl ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Reconnect forever: a NATS restart must not take the daemon down. Pings every 1.5 s, two
  // unanswered: a server gone without closing the socket is noticed within three ping intervals (readiness).
  const nc = await connect({
    servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 1500,
    maxPingOut: 2,
    // Otherwise every request (a job's publish, KV get and put, each pull) builds Errors up front
    // only to hold the caller's stack (nats-core 3.4 lib/request.js BaseRequest, lib/util.js
    // timeout): a cost per job for a trace a failure rarely needs; failures keep their message.
    noAsyncTraces: true,
  });
  // JetStream calls (publish, KV, API) give up after the publish timeout: during an outage a
  // request fails fast with a clear 503 instead of hanging.
  const timeout = config.publishTimeoutMs;
  const jsm = await jetstreamManager(nc, { timeout });
  const js = jetstream(nc, { timeout });
  const names = new Names(config.prefix, config.affinityBuckets);
  const buckets = await ensureResources(jsm, js, names, config);
  const c = { nc, js, jsm, names, ...buckets, config, drop, ensured: new Set<string>() } as ClusterConnection;
  c.resources = new JetStreamResources(
    c,
    async (c) => void Object.assign(c, await ensureResources(c.jsm, c.js, c.names, c.config)),
    log,
  );
  return c;
}

/** The work stream and the two buckets, each created if missing (idempotent); the buckets' handles. */
async function ensureResources(
  jsm: JetStreamManager,
  js: JetStreamClient,
  names: Names,
  config: ClusterConfig,
): Promise<{ cache: KV; inflight: KV }> {
  await ensureStream(jsm, names, config);
  const kvm = new Kvm(js);
  const cache = await kvm.create(names.cacheBucket, {
    ttl: config.cacheTtlSeconds * 1000,
    history: 1,
    replicas: config.replicas,
  });
  // Each claim carries its own expiry (deadline plus margin, checked by waiters); this bucket-wide
  // TTL only sweeps claims nobody asked about again (per-key TTLs need NATS 2.11).
  const inflight = await kvm.create(names.inflightBucket, { ttl: 3600_000, history: 1, replicas: config.replicas });
  return { cache, inflight };
}

async function ensureStream(jsm: JetStreamManager, names: Names, config: ClusterConfig): Promise<void> {
  try {
    await jsm.streams.info(names.stream);
  } catch {
    await jsm.streams
      .add({
        name: names.stream,
        subjects: [names.workAll],
        // Work-queue retention: a job is deleted once acknowledged; each subject has one consumer.
        retention: RetentionPolicy.Workqueue,
        num_replicas: config.replicas,
        // A resubmission of the same job id within this window is dropped (Nats-Msg-Id).
        duplicate_window: nanos(120_000),
      })
      .catch(async (e: unknown) => {
        // Another node created it between our info and add.
        await jsm.streams.info(names.stream).catch(() => {
          throw e;
        });
      });
  }
}

/**
 * The durable pull consumer of a work subject, shared by every worker that pulls it; created
 * once (idempotent on the server, remembered here). A job is published only to a subject
 * whose consumer exists, so no job waits in the stream where nothing would deliver it.
 */
export async function ensureConsumer(c: ClusterConnection, subject: string): Promise<void> {
  if (c.ensured.has(subject)) return;
  await addConsumer(c.jsm, c.names, c.names.consumerOf(subject), subject, c.config);
  c.ensured.add(subject);
}

async function addConsumer(
  jsm: JetStreamManager,
  names: Names,
  durable: string,
  subject: string,
  config: ClusterConfig,
): Promise<void> {
  await jsm.consumers.add(names.stream, {
    durable_name: durable,
    filter_subject: subject,
    ack_policy: AckPolicy.Explicit,
    // A worker that dies stops acknowledging and extending: after ack_wait the job goes to another.
    ack_wait: nanos(config.ackWaitSeconds * 1000),
    max_deliver: config.maxDeliver,
    max_ack_pending: -1,
  });
}
