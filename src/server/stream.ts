/**
 * The WebSocket channel `/v1/stream`: a client sends `{id, tool, request}`; the daemon
 * answers with `queued`, `started`, `progress` (command i of n elaborated), then one
 * `result` or `error` per id. Several ids may be in flight on one socket; `{id, cancel:
 * true}` or closing the socket aborts them, which frees (kills and replaces) their sessions.
 * Each socket is a StreamConnection (stream-connection.ts); a message is read by stream-message.ts.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../admission/keys.ts';
import type { WebSocket } from 'ws';
import type { StreamLimits } from './stream-send.ts';
import { StreamDrain } from './stream-drain.ts';
import type { Pipeline } from './pipeline.ts';
import type { SharedLinks } from './shared-links.ts';
import { StreamConnection, type StreamExtension } from './stream-connection.ts';

export type { StreamLimits } from './stream-send.ts';
export { CLOSE_SLOW_READER } from './stream-send.ts';
export { CLOSE_NO_PONG, type StreamExtension } from './stream-connection.ts';

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  sendBudgetBytes: 8 * 1024 * 1024,
  sendHardLimitBytes: 64 * 1024 * 1024,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 300_000,
};

export async function registerStream(
  parent: FastifyInstance,
  pipeline: Pipeline,
  opts: {
    maxPayloadBytes: number;
    authorize: (request: FastifyRequest) => Caller;
    limits?: StreamLimits;
    closing?: () => boolean;
    links?: SharedLinks;
    extension?: StreamExtension;
    /** The result event's `cache` member (config server.cacheStatus; off: left out). */
    cacheStatus?: boolean;
    /** The per-caller admission (the limiter), taken by extension messages that run Lean. */
    admit?: (caller: Caller, signal: AbortSignal) => Promise<() => void>;
    /** On close, in-flight stream requests get this long to finish before their sockets close. */
    drainTimeoutMs?: number;
  },
): Promise<void> {
  const limits = opts.limits ?? DEFAULT_STREAM_LIMITS;
  // An encapsulated context: the websocket plugin's per-request hooks then apply to this route only.
  await parent.register(async (app) => {
    // Shutdown drains the sockets (stream-drain.ts) instead of the plugin's default, which closed them at once.
    const drain = new StreamDrain();
    await app.register(websocket, {
      options: { maxPayload: opts.maxPayloadBytes },
      preClose: () => drain.drain(app.websocketServer, opts.drainTimeoutMs ?? 30_000, app.log),
    });
    // Refuse a bad key before the upgrade (a plain 401 response).
    app.addHook('preValidation', async (request) => {
      opts.authorize(request);
    });
    const ctx = {
      pipeline,
      limits,
      drain,
      closing: opts.closing,
      links: opts.links,
      extension: opts.extension,
      cacheStatus: opts.cacheStatus === true,
      admit: opts.admit,
    };
    app.get('/v1/stream', { websocket: true }, (socket: WebSocket, request) => {
      new StreamConnection(socket, request, ctx);
    });
  });
}
