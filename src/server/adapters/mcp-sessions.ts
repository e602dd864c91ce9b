/**
 * The MCP sessions of `/mcp`, bounded in number and idle time. A session is stateful (the SDK's
 * StreamableHTTPServerTransport with a session id) because cancellation needs it: the client
 * cancels with `notifications/cancelled` in a separate POST, which only the server instance
 * running the request can act on. A session belongs to the caller that opened it (the same
 * key, or for anonymous callers the same address); another caller presenting its id is told it
 * does not exist.
 *
 * The table is shared, so no caller may empty it of another's sessions: each caller holds at
 * most `maxSessionsPerCaller` (past it a new one closes that caller's own least recently used
 * idle session), and when the table is full an idle session is taken only from the caller
 * holding the most, and only if it holds more than the newcomer would after opening one.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { serviceError } from '../../errors.ts';

export interface McpSessionLimits {
  /** Sessions open at once; past it an idle one is closed (see the class), or the new one refused (503). */
  maxSessions: number;
  /** Sessions one caller holds at once; past it its own least recently used idle one is closed, or 503. */
  maxSessionsPerCaller: number;
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
  /** Left the table (closed, or its initialize failed): no longer counted against its caller. */
  gone: boolean;
}

/** What a new session is made of; the table supplies the busy counter and the transport. */
export type SessionFactory = (busy: (delta: 1 | -1) => void) => McpServer;

export class McpSessions {
  readonly #open = new Map<string, McpSession>();
  /** Sessions created whose initialize has not been answered yet: they count against the limit. */
  #pending = 0;
  /** Sessions (open or pending) per caller id; a caller holding none has no entry. */
  readonly #held = new Map<string, number>();
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

  /** Sessions (open or being initialized) this caller holds. */
  heldBy(callerId: string): number {
    return this.#held.get(callerId) ?? 0;
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
    this.#makeRoom(callerId);
    this.#pending++;
    this.#held.set(callerId, this.heldBy(callerId) + 1);
    const state = { id: '', callerId, lastSeen: this.now(), busy: 0, gone: false };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Called (with the new id) when the SDK answers the initialize: `session` exists by then.
      onsessioninitialized: (id) => {
        state.id = id;
        this.#open.set(id, session);
      },
      onsessionclosed: () => this.#remove(session),
    });
    const server = factory((delta) => {
      state.busy += delta;
      state.lastSeen = this.now();
    });
    const session: McpSession = Object.assign(state, { transport, server });
    transport.onclose = () => this.#remove(session);
    try {
      await server.connect(transport);
    } catch (e) {
      // Never entered the table: its place and its caller's count are given back.
      this.#pending--;
      this.#remove(session);
      throw e;
    }
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      this.#pending--;
      if (session.id) return;
      this.#remove(session);
      void server.close();
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
    this.#remove(s);
    return s.server.close().catch(() => {});
  }

  /** Out of the table and of its caller's count, once whichever way it ends. */
  #remove(s: McpSession): void {
    if (s.gone) return;
    s.gone = true;
    if (s.id && this.#open.get(s.id) === s) this.#open.delete(s.id);
    const n = this.heldBy(s.callerId) - 1;
    if (n > 0) this.#held.set(s.callerId, n);
    else this.#held.delete(s.callerId);
  }

  /**
   * Room for one more session of this caller: at its own limit, its least recently used idle
   * session is closed; with the table full, an idle session of whoever holds the most (the caller
   * itself included) if that holder would still hold at least as many as this caller; else 503.
   */
  #makeRoom(callerId: string): void {
    const own = this.heldBy(callerId);
    const { maxSessions, maxSessionsPerCaller } = this.limits;
    if (own >= maxSessionsPerCaller) {
      const victim = this.#pickIdle((s) => s.callerId === callerId);
      if (!victim)
        throw serviceError('overloaded', 'mcp_caller_sessions', { limit: maxSessionsPerCaller }, { retryAfter: 2 });
      void this.#close(victim);
      return;
    }
    if (this.#open.size + this.#pending < maxSessions) return;
    const victim = this.#pickIdle((s) => s.callerId === callerId || this.heldBy(s.callerId) > own + 1);
    if (!victim) throw serviceError('overloaded', 'mcp_sessions', { limit: maxSessions }, { retryAfter: 2 });
    void this.#close(victim);
  }

  /** Among the idle sessions `eligible` accepts: one of the caller holding the most, its least recently used. */
  #pickIdle(eligible: (s: McpSession) => boolean): McpSession | undefined {
    let best: McpSession | undefined;
    let bestHeld = 0;
    for (const s of this.#open.values()) {
      if (s.busy > 0 || !eligible(s)) continue;
      const held = this.heldBy(s.callerId);
      if (!best || held > bestHeld || (held === bestHeld && s.lastSeen < best.lastSeen)) {
        best = s;
        bestHeld = held;
      }
    }
    return best;
  }
}
