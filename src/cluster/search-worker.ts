/**
 * A worker's side of pinned proof searches: it leases REPL processes of its own pools for
 * fronts (`open`), runs their commands and tactics one at a time, and gives them back or kills
 * them when told. A lease no front used for `idleMs` (its front died, or lost us) is killed: the
 * REPL frees nothing, so a forgotten process would hold its states forever.
 */
import type { Subscription } from '@nats-io/transport-node';
import type { SessionLease } from '../backend/lease.ts';
import { ReplError } from '../backend/process/repl-process.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { isServiceError } from '../errors.ts';
import type { Log } from '../log.ts';
import type { ClusterConnection } from './connection.ts';
import { decodeAs, encode } from './messages.ts';
import { searchRequestSchema, type SearchLeaseReply, type SearchLeaseRequest } from './search-messages.ts';
import { deadlineSignal } from '../util/timeout-signal.ts';

export interface SearchWorkerDeps {
  /** This worker's own processes (the search service's local lease). */
  lease: (env: EnvironmentConfig, header: string, signal: AbortSignal) => Promise<SessionLease>;
  environment: (name: string) => EnvironmentConfig;
  /** A lease unused this long is killed (0: never). */
  idleMs: number;
  log: Log;
}

export class SearchLeases {
  #leases = new Map<string, { lease: SessionLease; usedAt: number }>();
  #sub: Subscription;
  #timer: NodeJS.Timeout | undefined;
  #next = 0;

  constructor(
    private readonly c: ClusterConnection,
    nodeId: string,
    private readonly deps: SearchWorkerDeps,
  ) {
    this.#sub = c.nc.subscribe(c.names.search(nodeId), {
      callback: (err, msg) => {
        if (err) return;
        const req = decodeAs(searchRequestSchema, 'search lease', msg.data, c.drop);
        if (!req) return;
        // #handle answers every failure; the reply is best effort (the front's request times out if NATS drops it).
        void this.#handle(req)
          .then((reply) => msg.respond(encode(reply)))
          .catch(() => {});
      },
    });
    if (deps.idleMs > 0) {
      this.#timer = setInterval(() => this.#sweep(), Math.min(deps.idleMs, 10_000));
      this.#timer.unref();
    }
  }

  get size(): number {
    return this.#leases.size;
  }

  /** Leases opened since start (a front leases per search message). */
  get opened(): number {
    return this.#next;
  }

  async #handle(req: SearchLeaseRequest): Promise<SearchLeaseReply> {
    try {
      if (req.op === 'open') return await this.#open(req.environment, req.header);
      const held = this.#leases.get(req.lease);
      if (!held)
        return { ok: false, fault: 'closed', message: 'no such lease on this worker (it was killed or expired)' };
      held.usedAt = Date.now();
      const { lease } = held;
      const rssBytes = () => lease.usage().rssBytes;
      switch (req.op) {
        case 'command': {
          const r = await lease.command(req.text, undefined, () => ({ text: req.sent, lines: req.lines }));
          const value = { env: r.env, messages: r.messages, sorries: r.sorries };
          return { ok: true, cached: r.cached, value, rssBytes: rssBytes() };
        }
        case 'step':
          return { ok: true, value: replJson(await lease.step(req.tactic, req.proofState)), rssBytes: rssBytes() };
        case 'release':
        case 'destroy':
          this.#leases.delete(req.lease);
          if (req.op === 'release') lease.release(req.states);
          else lease.destroy(req.reason);
          return { ok: true };
      }
    } catch (e) {
      return failure(e);
    }
  }

  async #open(environment: string, header: string): Promise<SearchLeaseReply> {
    const opening = deadlineSignal(undefined, 60_000);
    const lease = await this.deps
      .lease(this.deps.environment(environment), header, opening.signal)
      .finally(() => opening.clear());
    const id = `l${this.#next++}`;
    this.#leases.set(id, { lease, usedAt: Date.now() });
    return { ok: true, lease: id, pid: lease.pid, sessionId: lease.sessionId, rssBytes: lease.usage().rssBytes };
  }

  #sweep(now = Date.now()): void {
    for (const [id, h] of this.#leases)
      if (now - h.usedAt >= this.deps.idleMs) {
        this.#leases.delete(id);
        h.lease.destroy('search: no front used this lease for the idle time');
      }
  }

  close(): void {
    clearInterval(this.#timer);
    this.#sub.unsubscribe();
    for (const h of this.#leases.values()) h.lease.destroy('search: worker closing');
    this.#leases.clear();
  }
}

/** The REPL's answer as the REPL wrote it (the front parses it again: parseResponse). */
function replJson(r: Awaited<ReturnType<SessionLease['step']>>): unknown {
  return r.value;
}

function failure(e: unknown): SearchLeaseReply {
  if (e instanceof ReplError) return { ok: false, fault: e.fault, message: e.message };
  if (isServiceError(e)) return { ok: false, code: e.code, message: e.message };
  return { ok: false, message: (e as Error)?.message ?? String(e) };
}
