/**
 * A front's side of pinned proof searches: the search service (src/search) leases its process
 * here instead of from local pools. `open` picks one live worker that can run Lean for the
 * environment (one that holds the header warm first, then the least busy) and the lease is
 * pinned to it: every command and tactic of the search's host goes to that worker. The lease is
 * unhealthy once the worker leaves the membership (missed heartbeats) or stops answering: the
 * search then finds it dead at its next message and rebuilds every live state by replay on a
 * lease of another worker (src/search/replay.ts), telling the client which states were rebuilt.
 */
import type { SessionLease, LeasedCommand } from '../backend/lease.ts';
import { ReplError } from '../backend/process/repl-process.ts';
import { parseResponse, type ReplResponse } from '../backend/protocol/schema.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { relayedError, serviceError, type ErrorCode } from '../errors.ts';
import type { ClusterConnection } from './connection.ts';
import type { Membership } from './membership.ts';
import { decodeAs, encode } from './messages.ts';
import { keyId, workKey } from './names.ts';
import { searchReplySchema, type SearchLeaseReply, type SearchLeaseRequest } from './search-messages.ts';

type Ok = Extract<SearchLeaseReply, { ok: true }>;

export class RemoteSearch {
  /** Workers that failed an `open` lately are tried last (they may still be in the membership for a moment). */
  #failed = new Map<string, number>();

  constructor(
    private readonly c: ClusterConnection,
    private readonly members: Membership,
  ) {}

  /** Whether some live worker can run Lean for `env` (the front runs none itself). */
  available(env: string): boolean {
    return this.members.environmentAvailable(env) === true;
  }

  /** A lease of a process on one live worker, pinned there. */
  async lease(env: EnvironmentConfig, header: string, signal: AbortSignal, prefer?: string): Promise<SessionLease> {
    const nodes = this.#candidates(env, header);
    // The worker of the search's last message first: its states are there.
    const home = nodes.findIndex((n) => prefer?.startsWith(`${n}/`) && !this.failedLately(n));
    if (home > 0) nodes.unshift(...nodes.splice(home, 1));
    for (const node of nodes) {
      try {
        return new RemoteLease(
          this,
          node,
          await this.#ask(node, { op: 'open', environment: env.name, header }, signal, 60_000),
        );
      } catch (e) {
        if (signal.aborted)
          throw signal.reason instanceof Error ? signal.reason : serviceError('cancelled', 'by_client');
        // A worker that cannot open one (gone, or its pool refused): the next one.
        if (!(e instanceof ReplError)) throw e;
        this.#failed.set(node, Date.now());
      }
    }
    throw serviceError('overloaded', 'cluster_no_workers', {}, { retryAfter: 2 });
  }

  #candidates(env: EnvironmentConfig, header: string): string[] {
    const warm = new Set(this.members.holders(keyId(workKey(env.name, header))));
    const recent = (n: string) => this.failedLately(n);
    return this.members
      .live()
      .filter((m) => m.environments[env.name] === true)
      .sort(
        (a, b) =>
          Number(recent(a.node)) - Number(recent(b.node)) ||
          Number(warm.has(b.node)) - Number(warm.has(a.node)) ||
          a.busy / Math.max(1, a.slots) - b.busy / Math.max(1, b.slots),
      )
      .map((m) => m.node);
  }

  live(node: string): boolean {
    return this.members.live().some((m) => m.node === node);
  }

  /** Whether `node` failed to open a lease lately (it may still be in the membership for a moment). */
  failedLately(node: string): boolean {
    const stale = this.c.config.heartbeatMs * this.c.config.missedHeartbeats;
    return Date.now() - (this.#failed.get(node) ?? 0) < stale;
  }

  /**
   * One request to `node`; a REPL fault comes back as ReplError (the process is gone), a service
   * error as itself. The worker leaving the membership, or `signal`, ends the wait as a fault.
   */
  async #ask(node: string, req: SearchLeaseRequest, signal: AbortSignal | undefined, ms: number): Promise<Ok> {
    const body = encode(req);
    // The largest message the server takes: a larger command is refused for good (as the front refuses a job), not a fault.
    const limit = this.c.nc.info?.max_payload;
    if (limit !== undefined && body.length + 1024 > limit)
      throw serviceError('payload_too_large', 'cluster_payload', { bytes: body.length, limit });
    // Aborted when the node leaves the cluster or the caller aborts (one controller: not
    // AbortSignal.any, whose sources Node 20 holds only weakly; src/util/timeout-signal.ts).
    const stop = new AbortController();
    const gone = setInterval(() => {
      if (!this.live(node)) stop.abort();
    }, this.c.config.heartbeatMs);
    const onAbort = () => stop.abort();
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    let data: Uint8Array;
    try {
      const reply = this.c.nc.request(this.c.names.search(node), body, { timeout: ms });
      reply.catch(() => {});
      data = (await Promise.race([reply, aborted(stop.signal)])).data;
    } catch (e) {
      const why = signal?.aborted ? 'aborted' : stop.signal.aborted ? 'left the cluster' : (e as Error).message;
      throw new ReplError(signal?.aborted ? 'aborted' : 'crashed', `worker ${node}: ${why}`);
    } finally {
      clearInterval(gone);
      signal?.removeEventListener('abort', onAbort);
    }
    const r = decodeAs(searchReplySchema, 'search lease reply', data, this.c.drop);
    if (!r) throw new ReplError('garbage', `worker ${node} sent a reply that does not match its schema`);
    if (r.ok) return r;
    if (r.fault) throw new ReplError(r.fault, `on worker ${node}: ${r.message}`);
    throw r.code ? relayedError({ code: r.code as ErrorCode, message: r.message }) : new Error(r.message);
  }

  ask(node: string, req: SearchLeaseRequest, signal: AbortSignal | undefined, ms = 24 * 3600_000): Promise<Ok> {
    return this.#ask(node, req, signal, ms);
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error('aborted'));
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
}

/** A lease of a process on `node`: its requests go there, one at a time (the search host queues them). */
class RemoteLease implements SessionLease {
  readonly pid: number;
  readonly sessionId: number;
  #id: string;
  #done = false;
  #rss: number;

  constructor(
    private readonly remote: RemoteSearch,
    readonly node: string,
    opened: Ok,
  ) {
    this.#id = opened.lease!;
    this.pid = opened.pid ?? 0;
    this.sessionId = opened.sessionId ?? 0;
    this.#rss = opened.rssBytes ?? 0;
  }

  /** The worker's session: ids are a counter of the worker's, never reused there. */
  get process(): string {
    return `${this.node}/${this.sessionId}`;
  }

  get healthy(): boolean {
    return !this.#done && this.remote.live(this.node);
  }

  /** The worker's pool is not seen from the front. */
  readonly contended = false;

  /** As far as the front can tell: the worker lives (a replay at the next message finds out otherwise). */
  get alive(): boolean {
    return this.remote.live(this.node) && !this.remote.failedLately(this.node);
  }

  async command(
    text: string,
    signal: AbortSignal | undefined,
    prepare?: (text: string) => { text: string; lines: number },
  ): Promise<LeasedCommand> {
    const p = prepare ? prepare(text) : { text, lines: 0 };
    const r = await this.#run({ op: 'command', lease: this.#id, text, sent: p.text, lines: p.lines }, signal);
    const parsed = parseResponse(r.value);
    if (parsed.type !== 'command')
      throw new ReplError('garbage', `worker ${this.node}: a command answered ${parsed.type}`);
    const { env, messages, sorries } = parsed.value;
    return { env, messages, sorries, cached: r.cached ?? false };
  }

  async step(tactic: string, proofState: number, signal?: AbortSignal): Promise<ReplResponse> {
    return parseResponse((await this.#run({ op: 'step', lease: this.#id, tactic, proofState }, signal)).value);
  }

  async #run(req: SearchLeaseRequest, signal: AbortSignal | undefined): Promise<Ok> {
    if (this.#done) throw new ReplError('closed', 'the lease ended');
    try {
      const r = await this.remote.ask(this.node, req, signal);
      this.#rss = r.rssBytes ?? this.#rss;
      return r;
    } catch (e) {
      // The process is gone or must go (an abort kills it, as a local abort does): end the lease there too.
      if (e instanceof ReplError) this.destroy(`search: ${e.message}`);
      throw e;
    }
  }

  usage(): { rssBytes: number } {
    return { rssBytes: this.#rss };
  }

  release(states: number): void {
    this.#end({ op: 'release', lease: this.#id, states });
  }

  destroy(reason: string): void {
    this.#end({ op: 'destroy', lease: this.#id, reason });
  }

  #end(req: SearchLeaseRequest): void {
    if (this.#done) return;
    this.#done = true;
    void this.remote.ask(this.node, req, undefined, 10_000).catch(() => {});
  }
}
