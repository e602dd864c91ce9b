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
import { Names } from './names.ts';

export interface ClusterConnection {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: Names;
  cache: KV;
  inflight: KV;
  config: ClusterConfig;
}

const nanos = (ms: number) => Math.round(ms * 1e6);

export async function openCluster(config: ClusterConfig, name: string): Promise<ClusterConnection> {
  const servers = (config.natsUrl ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Reconnect forever: a NATS restart must not take the daemon down.
  const nc = await connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const names = new Names(config.prefix);
  await ensureStream(jsm, names, config);
  await ensureConsumer(jsm, names, names.fallbackConsumer, names.fallbackSubject, config);
  const kvm = new Kvm(js);
  const cache = await kvm.create(names.cacheBucket, {
    ttl: config.cacheTtlSeconds * 1000,
    history: 1,
    replicas: config.replicas,
  });
  // A claim outlives any job (deadlines are capped) but not forever: a front that died holding one frees it.
  const inflight = await kvm.create(names.inflightBucket, { ttl: 3600_000, history: 1, replicas: config.replicas });
  return { nc, js, jsm, names, cache, inflight, config };
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

/** A durable pull consumer shared by every worker that pulls `subject`. */
export async function ensureConsumer(
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
