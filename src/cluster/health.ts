/**
 * The node's view of its own link to NATS, for readiness and metrics: every connection
 * state change the client reports is logged and counted, and JetStream (which can be down
 * while the NATS connection is up: no meta leader, a lost quorum) is judged by its last
 * answer, probed when nothing else asked it lately.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Log } from '../log.ts';

/** Where connection figures go (src/metrics), if anyone listens. */
export interface ConnectionObserver {
  event(type: string): void;
}

/** Client status events that change the connection's state (pings and cluster updates are not). */
const STATE_CHANGES = new Set(['disconnect', 'reconnect', 'reconnecting', 'staleConnection', 'ldm', 'error', 'close']);

export class ConnectionHealth {
  #connected = true;
  #events: Record<string, number> = {};
  #jsOkAt = Date.now();
  #jsError: string | undefined;
  #probing = false;
  #timer: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly log: Log,
    private readonly observer: ConnectionObserver | undefined,
    /** Told of every failed JetStream call (the lost-resources check, resources.ts). */
    private readonly onFailure: () => void = () => {},
    /** JetStream unanswered this long counts as down. */
    private readonly staleMs = 3000,
  ) {
    void this.#watch();
    this.#timer = setInterval(() => void this.#probe(), Math.max(250, staleMs / 3));
    this.#timer.unref();
  }

  async #watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (!STATE_CHANGES.has(s.type)) continue;
      this.#events[s.type] = (this.#events[s.type] ?? 0) + 1;
      this.observer?.event(s.type);
      if (s.type === 'disconnect' || s.type === 'staleConnection' || s.type === 'close') this.#connected = false;
      if (s.type === 'reconnect') this.#connected = true;
      // Reconnect attempts repeat every 500 ms during an outage: counted, logged at debug only.
      const level = s.type === 'reconnecting' ? 'debug' : s.type === 'reconnect' ? 'info' : 'warn';
      this.log[level]({ nats: s }, `NATS connection: ${s.type}`);
    }
  }

  /** A JetStream call answered (any caller may report it, sparing a probe). */
  jetstreamOk(): void {
    this.#jsOkAt = Date.now();
    this.#jsError = undefined;
  }

  jetstreamFailed(err: unknown): void {
    this.#jsError = (err as Error).message;
    this.onFailure();
  }

  async #probe(): Promise<void> {
    if (this.#probing || Date.now() - this.#jsOkAt < this.staleMs / 2 || !this.connected()) return;
    this.#probing = true;
    try {
      await this.jsm.getAccountInfo();
      this.jetstreamOk();
    } catch (err) {
      this.jetstreamFailed(err);
    } finally {
      this.#probing = false;
    }
  }

  connected(): boolean {
    return this.#connected && !this.nc.isClosed();
  }

  /** JetStream answered within the stale window (and the connection is up). */
  jetstream(): { ok: boolean; error?: string; last_ok_ms: number } {
    const age = Date.now() - this.#jsOkAt;
    const ok = this.connected() && age <= this.staleMs;
    return { ok, last_ok_ms: age, ...(ok || !this.#jsError ? {} : { error: this.#jsError }) };
  }

  events(): Record<string, number> {
    return { ...this.#events };
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
