/**
 * The JetStream resources every node needs (the work-queue stream and the two key-value
 * buckets behind the shared cache and the claims; the consumers follow on demand), kept in
 * existence. A NATS that comes back with an empty store (a fresh volume, a lost disk, a pod
 * rescheduled without its claim) has none of them, and nothing else would make them again:
 * every queueing and claim would fail until the daemons restart. So on every reconnect, and
 * whenever a JetStream call failed while connected, the node looks them up and recreates
 * what is missing (creation is idempotent: every node may do it at once); until they exist
 * it says why (readiness, status) and a front refuses requests at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { Log } from '../log.ts';
import type { ClusterConnection } from './connection.ts';

/** The random wait before creating what is lost (another node may be creating it). */
const CREATE_JITTER_MS = 1000;
/** Between attempts to recreate resources known lost. */
const RETRY_MS = 1000;

const notFound = (err: unknown) => err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;

export class JetStreamResources {
  #missing: string | undefined;
  #rebuilt = 0;
  #checking: Promise<void> | undefined;
  #closed = false;
  /** Bumped on each rebuild: holders of consumer handles drop them when it changes. */
  generation = 0;

  constructor(
    private readonly c: ClusterConnection,
    private readonly create: (c: ClusterConnection) => Promise<void>,
    private readonly log: Log,
  ) {
    void this.#watch();
  }

  async #watch(): Promise<void> {
    for await (const s of this.c.nc.status()) if (s.type === 'reconnect') this.verify();
  }

  /** Looks the resources up (once at a time) and recreates them if lost; never throws. */
  verify(): void {
    if (this.#closed || this.#checking) return;
    this.#checking = this.#check().finally(() => (this.#checking = undefined));
  }

  async #check(): Promise<void> {
    while (!this.#closed && !this.c.nc.isClosed()) {
      try {
        const lost = await this.#afterOthers(await this.#lost());
        if (lost.length === 0) {
          this.#missing = undefined;
          return;
        }
        this.#missing = `JetStream lost ${lost.join(', ')} (NATS restarted without its store?): recreating`;
        this.log.warn({ lost }, 'JetStream resources missing; recreating them');
        await this.create(this.c);
        this.c.ensured.clear();
        this.generation++;
        this.#rebuilt++;
        this.log.info({ lost }, 'JetStream resources recreated');
      } catch (err) {
        // JetStream not answering, nothing known lost: readiness already says so, and the next
        // failed call or reconnect asks again. Known lost: keep trying to recreate them.
        if (!this.#missing) return;
        this.#missing = `${this.#missing.replace(/: recreating.*$/, '')}: recreating failed: ${(err as Error).message}`;
        await sleep(RETRY_MS);
      }
    }
  }

  /**
   * Every node notices a loss at about the same moment (the reconnect): each waits a random
   * while and looks again, so that mostly one creates them. Two creations of one stream at
   * once are not harmless on nats-server 2.9.10 (Debian's): a stream so made then failed every
   * publish with "error opening msg block file ... no such file or directory"
   * (test/cluster/outage.test.ts, 'streams deleted under a connected cluster').
   */
  async #afterOthers(lost: string[]): Promise<string[]> {
    if (lost.length === 0) return lost;
    await sleep(Math.random() * CREATE_JITTER_MS);
    return this.#lost();
  }

  /** The streams that do not exist (not found, as opposed to JetStream not answering, which throws). */
  async #lost(): Promise<string[]> {
    const { names } = this.c;
    const streams = [names.stream, `KV_${names.cacheBucket}`, `KV_${names.inflightBucket}`];
    const found = await Promise.all(
      streams.map((s) =>
        this.c.jsm.streams.info(s).then(
          () => true,
          (err: unknown) => {
            if (notFound(err)) return false;
            throw err;
          },
        ),
      ),
    );
    return streams.filter((_s, i) => !found[i]);
  }

  /** Why the resources are not usable now (undefined: they exist, as far as this node knows). */
  missing(): string | undefined {
    return this.#missing;
  }

  stats(): { rebuilt: number; missing?: string } {
    return { rebuilt: this.#rebuilt, ...(this.#missing ? { missing: this.#missing } : {}) };
  }

  close(): void {
    this.#closed = true;
  }
}
