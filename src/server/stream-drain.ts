/**
 * Draining the stream channel on shutdown (README's drain promise): from
 * the start of close, new requests on open sockets are refused with the 503-equivalent
 * `overloaded` error, in-flight ones finish (up to the drain timeout), then every socket is
 * closed with 1001 "going away" (RFC 6455 §7.4.1: an endpoint going down). Used as the
 * websocket plugin's `preClose` instead of its default, which closed every socket at once
 * and dropped in-flight work without a result or an error.
 */
import type { WebSocket, WebSocketServer } from 'ws';
import type { Log } from '../log.ts';

/** RFC 6455 §7.4.1: the server is going down. */
export const CLOSE_GOING_AWAY = 1001;

export class StreamDrain {
  readonly #inFlight = new Map<WebSocket, { size: number }>();
  #draining = false;

  /** True once the drain began: new requests are refused. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Follows `socket`'s in-flight requests (a Map or anything with a size) until it closes. */
  track(socket: WebSocket, inFlight: { size: number }): void {
    this.#inFlight.set(socket, inFlight);
    socket.once('close', () => this.#inFlight.delete(socket));
  }

  /** Requests in flight on all sockets. */
  pending(): number {
    let n = 0;
    for (const m of this.#inFlight.values()) n += m.size;
    return n;
  }

  /**
   * Refuse new work, wait (at most `timeoutMs`) for in-flight work to be answered, then close
   * every socket with 1001 and stop the WebSocket server.
   */
  async drain(server: WebSocketServer, timeoutMs: number, log: Log): Promise<void> {
    this.#draining = true;
    const end = Date.now() + timeoutMs;
    while (this.pending() > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    const left = this.pending();
    if (left > 0) log.warn({ left }, 'stream drain timeout: closing sockets with requests in flight');
    for (const socket of server.clients) socket.close(CLOSE_GOING_AWAY, 'server shutting down');
    // A client that does not answer the close handshake must not hold the shutdown.
    const closed = [...server.clients].map(
      (s) => new Promise<void>((r) => (s.readyState === s.CLOSED ? r() : s.once('close', () => r()))),
    );
    const grace = setTimeout(() => {
      for (const s of server.clients) s.terminate();
    }, 1_000);
    await Promise.all(closed);
    clearTimeout(grace);
    await new Promise<void>((r) => server.close(() => r()));
  }
}
