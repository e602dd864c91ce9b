/**
 * Who is in the cluster: workers publish a heartbeat (slots, busy, warm keys, running
 * jobs, environments) every `heartbeatMs`; every node listens and forgets a worker that
 * missed `missedHeartbeats` of them. Plain NATS pub/sub: a heartbeat is worthless once
 * stale, so nothing is stored.
 */
import type { Subscription } from '@nats-io/transport-node';
import type { ClusterConnection } from './connection.ts';
import { decodeAs, heartbeatSchema, type Heartbeat } from './messages.ts';

/** Whether the live workers can take a job of an environment (with or without Lean). */
export type Capability = 'yes' | 'no-workers' | 'not-here';

export class Membership {
  #members = new Map<string, Heartbeat & { seenAt: number }>();
  #sub: Subscription;
  readonly #staleMs: number;

  constructor(private readonly c: ClusterConnection) {
    this.#staleMs = c.config.heartbeatMs * c.config.missedHeartbeats;
    this.#sub = c.nc.subscribe(c.names.heartbeatAll, {
      callback: (err, msg) => {
        if (err) return;
        // A malformed heartbeat is dropped (and counted): membership is advisory.
        const hb = decodeAs(heartbeatSchema, 'heartbeat', msg.data, c.drop);
        if (hb) this.#members.set(hb.node, { ...hb, seenAt: Date.now() });
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

  /** Live workers holding a header warm whose bucket is `bucketOf(key)` (to leave their queue to them for a while). */
  bucketHolders(bucketOf: (keyId: string) => string, bucket: string): number {
    return this.live().filter((m) => m.warm.some((k) => bucketOf(k) === bucket)).length;
  }

  /** Jobs running on live workers for a consumer (to tell orphaned deliveries from busy ones). */
  running(consumer: string): number {
    let n = 0;
    for (const m of this.live()) n += m.running[consumer] ?? 0;
    return n;
  }

  /** Whether some live worker can take a job of `env`: it has the environment, and Lean for it when the job needs Lean. */
  capability(env: string, needsLean: boolean): Capability {
    const live = this.live();
    if (live.length === 0) return 'no-workers';
    return live.some((m) => env in m.environments && (!needsLean || m.environments[env] === true)) ? 'yes' : 'not-here';
  }

  /** Live workers per environment that can run Lean for it. */
  workersPerEnvironment(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const m of this.live())
      for (const [env, ok] of Object.entries(m.environments)) out[env] = (out[env] ?? 0) + (ok ? 1 : 0);
    return out;
  }

  /** undefined: no live worker at all; else whether any live worker can run Lean for `env`. */
  environmentAvailable(env: string): boolean | undefined {
    const c = this.capability(env, true);
    return c === 'no-workers' ? undefined : c === 'yes';
  }

  close(): void {
    this.#sub.unsubscribe();
  }
}
