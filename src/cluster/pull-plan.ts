/**
 * Which work consumers an idle worker should pull from, best first, from one scan of the
 * stream's consumers (every page: their number is bounded by environments × buckets, see
 * names.ts, so the scan costs the same at any number of headers seen). Only consumers of
 * environments this worker can run are considered: `plain` needs the environment
 * configured here, `any` and the buckets need Lean for it too.
 */
import type { ConsumerInfo } from '@nats-io/jetstream';
import type { ClusterConnection } from './connection.ts';
import type { Membership } from './membership.ts';

export interface Ours {
  /** Consumers of the buckets of headers warm here. */
  warm: Set<string>;
  /** Consumers of this worker's environments' `any` and `plain` queues. */
  env: Set<string>;
  /** Environment token → whether Lean runs for it here. */
  servable: Map<string, boolean>;
}

export class PullPlanner {
  constructor(
    private readonly c: ClusterConnection,
    private readonly members: Membership,
  ) {}

  /** Every consumer of the work stream (all pages). */
  async #scan(): Promise<ConsumerInfo[]> {
    const infos: ConsumerInfo[] = [];
    for await (const i of this.c.jsm.consumers.list(this.c.names.stream)) infos.push(i);
    return infos;
  }

  /** The bucket consumer a warm key id (`<env token>.<hash>`) falls in. */
  #bucketOf = (id: string): string => {
    const dot = id.indexOf('.');
    const envToken = id.slice(0, dot);
    return `${envToken}_${this.c.names.bucket({ env: envToken, hash: id.slice(dot + 1) })}`;
  };

  /** Whether this worker can run the jobs of a consumer (by its filter subject). */
  #servable(i: ConsumerInfo, ours: Ours): boolean {
    const w = this.c.names.parseWork(i.config.filter_subject ?? '');
    if (!w) return false;
    const lean = ours.servable.get(w.envToken);
    return lean === true || (lean === false && w.kind === 'plain');
  }

  async plan(ours: Ours, waitingSince: Map<string, number>): Promise<string[]> {
    const infos = (await this.#scan()).filter((i) => this.#servable(i, ours));
    const { heartbeatMs, stealAfterMs } = this.c.config;
    const now = Date.now();
    const candidates: string[] = [];
    // 1. Buckets of headers held warm here: the affinity that makes scale-out pay.
    for (const i of infos) if (ours.warm.has(i.name) && i.num_pending > 0) candidates.push(i.name);
    // 2. Our environments' queues: new headers warm on whichever worker is free (the least loaded).
    for (const i of infos) if (ours.env.has(i.name) && i.num_pending > 0) candidates.push(i.name);
    // 3. Someone else's bucket: taken when its holders are gone or have let it wait.
    // 4. Deliveries no live worker is running (their worker died): taken once ack_wait lets them go.
    for (const i of infos) {
      const orphaned = i.num_ack_pending > this.members.running(i.name);
      if (i.num_pending === 0 && !orphaned) {
        waitingSince.delete(i.name);
        continue;
      }
      const since = waitingSince.get(i.name) ?? now;
      waitingSince.set(i.name, since);
      if (candidates.includes(i.name)) continue;
      const bucket = !ours.env.has(i.name);
      const holders = bucket ? this.members.bucketHolders(this.#bucketOf, i.name) : 0;
      const stale = now - since >= (orphaned && i.num_pending === 0 ? heartbeatMs * 2 : stealAfterMs);
      if (stale || (bucket && i.num_pending > 0 && holders === 0)) candidates.push(i.name);
    }
    return candidates;
  }
}
