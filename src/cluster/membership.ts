/**
 * Who is in the cluster: workers publish a heartbeat (slots, busy, warm keys, running
 * jobs, environments) every `heartbeatMs`; every node listens and forgets a worker that
 * missed `missedHeartbeats` of them. Plain NATS pub/sub: a heartbeat is worthless once
 * stale, so nothing is stored.
 */
import type { Subscription } from '@nats-io/transport-node';
import type { ClusterConnection } from './connection.ts';
import { decode, type Heartbeat } from './messages.ts';

export class Membership {
  #members = new Map<string, Heartbeat & { seenAt: number }>();
  #sub: Subscription;
  readonly #staleMs: number;

  constructor(private readonly c: ClusterConnection) {
    this.#staleMs = c.config.heartbeatMs * c.config.missedHeartbeats;
    this.#sub = c.nc.subscribe(c.names.heartbeatAll, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const hb = decode<Heartbeat>(msg.data);
          if (typeof hb.node === 'string') this.#members.set(hb.node, { ...hb, seenAt: Date.now() });
        } catch {
          // A malformed heartbeat is ignored: membership is advisory.
        }
      },
    });
  }

  /** Live workers (heartbeat within the stale window). */
  live(): (Heartbeat & { seenAt: number })[] {
    const now = Date.now();
    const out = [];
    for (const [id, m] of this.#members) {
      if (now - m.seenAt > this.#staleMs) this.#members.delete(id);
      else out.push(m);
    }
    return out;
  }

  /** Live workers holding this key (`<env token>.<hash>`) warm. */
  holders(keyId: string): string[] {
    return this.live()
      .filter((m) => m.warm.includes(keyId))
      .map((m) => m.node);
  }

  /** Jobs running on live workers for a consumer (to tell orphaned deliveries from busy ones). */
  running(consumer: string): number {
    let n = 0;
    for (const m of this.live()) n += m.running[consumer] ?? 0;
    return n;
  }

  /** undefined: no live worker at all (work waits in the queue); else whether any live worker can run Lean for `env`. */
  environmentAvailable(env: string): boolean | undefined {
    const live = this.live();
    if (live.length === 0) return undefined;
    return live.some((m) => m.environments[env] === true);
  }

  close(): void {
    this.#sub.unsubscribe();
  }
}
