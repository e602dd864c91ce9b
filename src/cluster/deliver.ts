/**
 * A worker's finished job must reach its front across a NATS outage. Core NATS keeps
 * nothing for a client between connections: every reconnect attempt resets the client's
 * outbound buffer and rejects the flushes waiting on it with "connection disconnected"
 * (@nats-io/nats-core 3.4 lib/protocol.js, `prepare` → `resetOutbound`). So an outcome
 * counts as sent only once a flush after it succeeded; until then the worker sends it
 * again whenever the connection is back, while the job's deadline lasts (past it the
 * front has answered the client itself). An outcome that went out only after an outage is
 * sent once more a little later, for fronts that reconnected after the worker did; a
 * front settles each request once, so the copy is ignored where it was not needed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { NatsConnection } from '@nats-io/transport-node';

export interface OutcomeLine {
  nc: NatsConnection;
  /** Whether the client says the connection is up (ConnectionHealth). */
  connected: () => boolean;
}

/** How often an undelivered outcome looks whether NATS is back. */
const RETRY_MS = 250;
/** The second copy after an outage: fronts reconnect on their own schedule (reconnectTimeWait 500 ms plus jitter, connection.ts). */
export const RESEND_AFTER_OUTAGE_MS = 2000;

/**
 * Runs `send` (a core publish) and flushes, again after each failure, until a flush
 * succeeds (true), or `until` (epoch ms) passes or `stop` aborts (false). Never throws.
 */
export async function deliverOutcome(
  line: OutcomeLine,
  send: () => void,
  until: number,
  stop: AbortSignal,
): Promise<boolean> {
  let interrupted = false;
  for (;;) {
    if (line.connected()) {
      try {
        send();
        await line.nc.flush();
        if (interrupted) resendLater(line, send);
        return true;
      } catch {
        // Lost with the connection (or the client closed): go round once it is back.
      }
    }
    interrupted = true;
    if (stop.aborted || Date.now() >= until) return false;
    await sleep(RETRY_MS, undefined, { signal: stop }).catch(() => {});
  }
}

function resendLater(line: OutcomeLine, send: () => void): void {
  setTimeout(() => {
    try {
      if (line.connected()) send();
    } catch {
      // Best effort: the first copy is already with the server.
    }
  }, RESEND_AFTER_OUTAGE_MS).unref();
}
