/**
 * The MCP sessions of `/mcp`, bounded in number and idle time. A session is stateful (the SDK's
 * StreamableHTTPServerTransport with a session id) because cancellation needs it: the client
 * cancels with `notifications/cancelled` in a separate POST, which only the server instance
 * running the request can act on. A session belongs to the caller that opened it (the same
 * key); another caller presenting its id is told it does not exist.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { serviceError } from '../../errors.ts';

export interface McpSessionLimits {
  /** Sessions open at once; past it the least recently used idle one is closed, or the new one refused (503). */
  maxSessions: number;
  /** A session with no request and no tool call running for this long is closed. */
  idleSeconds: number;
}

export interface McpSession {
  readonly id: string;
  readonly callerId: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  lastSeen: number;
  /** Tool calls running. */
  busy: number;
}

/** What a new session is made of; the table supplies the busy counter and the transport. */
export type SessionFactory = (busy: (delta: 1 | -1) => void) => McpServer;

export class McpSessions {
  readonly #open = new Map<string, McpSession>();
  /** Sessions created whose initialize has not been answered yet: they count against the limit. */
  #pending = 0;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    private readonly limits: McpSessionLimits,
    private readonly now: () => number = Date.now,
  ) {
    const idleMs = limits.idleSeconds * 1000;
    this.#sweep = setInterval(() => this.closeIdle(), Math.max(1000, Math.min(idleMs / 2, 30_000)));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#open.size;
  }

  /** The caller's open session with this id (touched), or undefined. */
  get(id: string, callerId: string): McpSession | undefined {
    const s = this.#open.get(id);
    if (!s || s.callerId !== callerId) return undefined;
    s.lastSeen = this.now();
    return s;
  }

  /**
   * A transport and server for an initialize request. The session enters the table when the
   * SDK has answered the initialize (its id is then known); `settle` must be called once the
   * request was handled, so a failed initialize frees its place.
   */
  async create(callerId: string, factory: SessionFactory): Promise<{ session: McpSession; settle: () => void }> {
    this.#makeRoom();
    this.#pending++;
    const state = { id: '', callerId, lastSeen: this.now(), busy: 0 };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Called (with the new id) when the SDK answers the initialize: `session` exists by then.
      onsessioninitialized: (id) => {
        state.id = id;
        this.#open.set(id, session);
      },
      onsessionclosed: (id) => {
        this.#open.delete(id);
      },
    });
    const server = factory((delta) => {
      state.busy += delta;
      state.lastSeen = this.now();
    });
    const session: McpSession = Object.assign(state, { transport, server });
    transport.onclose = () => {
      if (session.id) this.#open.delete(session.id);
    };
    await server.connect(transport);
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      this.#pending--;
      if (!session.id) void server.close();
    };
    return { session, settle };
  }

  /** Close sessions idle past the limit (no request for idleSeconds and no tool call running). */
  closeIdle(): void {
    const cutoff = this.now() - this.limits.idleSeconds * 1000;
    for (const s of [...this.#open.values()]) if (s.busy === 0 && s.lastSeen <= cutoff) this.#close(s);
  }

  /** End the long-lived GET streams (at shutdown: they would hold the server open). */
  closeStreams(): void {
    for (const s of this.#open.values()) s.transport.closeStandaloneSSEStream();
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#open.values()].map((s) => this.#close(s)));
  }

  #close(s: McpSession): Promise<void> {
    this.#open.delete(s.id);
    return s.server.close().catch(() => {});
  }

  /** At the limit: close the least recently used idle session, or refuse (every session is running a call). */
  #makeRoom(): void {
    if (this.#open.size + this.#pending < this.limits.maxSessions) return;
    let lru: McpSession | undefined;
    for (const s of this.#open.values()) if (s.busy === 0 && (!lru || s.lastSeen < lru.lastSeen)) lru = s;
    if (!lru) throw serviceError('overloaded', 'mcp_sessions', { limit: this.limits.maxSessions }, { retryAfter: 2 });
    void this.#close(lru);
  }
}
