/**
 * A worker's finished job must reach its front across a NATS outage. Core NATS keeps
 * nothing for a client between connections: every reconnect attempt resets the client's
 * outbound buffer and rejects the flushes waiting on it with "connection disconnected"
 * (@nats-io/nats-core 3.4 lib/protocol.js, `prepare` → `resetOutbound`). So an outcome
 * counts as sent only once a flush after it succeeded; until then the worker sends it
 * again whenever the connection is back, while the job's deadline lasts (past it the front
 * has answered the client itself).
 * The server having it is not the front having it: a front still reconnecting (or one
 * whose own link dropped, on another NATS node) misses it. So the outcomes sent lately are
 * kept (bounded by age and bytes) and sent again when a front announces it is back with
 * the keys it still waits for; a front settles each request once, so a copy it no longer
 * needs is ignored.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { decodeAs, frontBackSchema, type DropReporter } from './messages.ts';

export interface OutcomeLine {
  nc: NatsConnection;
  /** Whether the client says the connection is up (ConnectionHealth). */
  connected: () => boolean;
  /** The subject fronts announce their return on. */
  frontBack: string;
  drop: DropReporter;
}

/** How often an undelivered outcome looks whether NATS is back. */
const RETRY_MS = 250;
/** Outcomes sent within this long are kept for fronts coming back (a front reconnects every reconnectTimeWait, connection.ts). */
export const KEEP_MS = 30_000;
/** At most this many bytes of outcomes kept (the oldest go first). */
export const KEEP_BYTES = 8 * 1024 * 1024;

interface Kept {
  send: () => void;
  bytes: number;
  until: number;
}

export class OutcomeCourier {
  /** By cache key, oldest first. */
  #kept = new Map<string, Kept>();
  #bytes = 0;
  #sub: Subscription;

  constructor(private readonly line: OutcomeLine) {
    this.#sub = line.nc.subscribe(line.frontBack, {
      callback: (err, msg) => {
        if (err) return;
        const back = decodeAs(frontBackSchema, 'front back', msg.data, line.drop);
        if (back) this.#resend(back.keys);
      },
    });
  }

  /**
   * Runs `send` (a core publish of `bytes`) and flushes, again after each failure, until a
   * flush succeeds (true), or `until` (epoch ms) passes or `stop` aborts (false). Never throws.
   */
  async deliver(key: string, send: () => void, bytes: number, until: number, stop: AbortSignal): Promise<boolean> {
    for (;;) {
      if (this.line.connected()) {
        try {
          send();
          await this.line.nc.flush();
          this.#keep(key, { send, bytes, until: Math.min(until, Date.now() + KEEP_MS) });
          return true;
        } catch {
          // Lost with the connection (or the client closed): go round once it is back.
        }
      }
      if (stop.aborted || Date.now() >= until) return false;
      await sleep(RETRY_MS, undefined, { signal: stop }).catch(() => {});
    }
  }

  #keep(key: string, k: Kept): void {
    this.#forget(key);
    this.#kept.set(key, k);
    this.#bytes += k.bytes;
    const now = Date.now();
    for (const [old, o] of this.#kept) {
      if (this.#bytes <= KEEP_BYTES && now < o.until) break;
      this.#forget(old);
    }
  }

  #forget(key: string): void {
    const o = this.#kept.get(key);
    if (!o) return;
    this.#bytes -= o.bytes;
    this.#kept.delete(key);
  }

  #resend(keys: string[]): void {
    const now = Date.now();
    for (const key of keys) {
      const o = this.#kept.get(key);
      if (!o) continue;
      if (now >= o.until) this.#forget(key);
      else
        try {
          o.send();
        } catch {
          // Best effort: the server had the first copy.
        }
    }
  }

  /** Outcomes kept now, and their bytes. */
  stats(): { kept: number; bytes: number } {
    return { kept: this.#kept.size, bytes: this.#bytes };
  }

  close(): void {
    this.#sub.unsubscribe();
  }
}
