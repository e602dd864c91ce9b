/**
 * The WebSocket channel `/v1/stream`: a client sends `{id, tool, request}`; the daemon
 * answers with `queued`, `started`, `progress` (command i of n elaborated), then one
 * `result` or `error` per id. Several ids may be in flight on one socket; `{id, cancel:
 * true}` or closing the socket aborts them, which frees (kills and replaces) their sessions.
 */
import websocket from '@fastify/websocket';
import sjson from 'secure-json-parse';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../admission/keys.ts';
import type { RawData, WebSocket } from 'ws';
import type { z } from 'zod';
import { streamCancel, streamClientMessage, streamRequest } from '../contract/stream.ts';
import { isToolName } from '../contract/tools.ts';
import {
  describeDetails,
  fieldsError,
  issuesToDetails,
  unknownTool,
  type ClippedDetails,
} from '../contract/validate.ts';
import { ServiceError, serviceError, type ErrorDetail } from '../errors.ts';
import { toServiceError } from './error-handler.ts';
import { createSender, errorEvent, type StreamLimits } from './stream-send.ts';
import { StreamDrain } from './stream-drain.ts';
import type { Pipeline } from './pipeline.ts';
import { attachRequestId, newRequestId } from './request-id.ts';
import type { SharedLinks } from './shared-links.ts';

/**
 * Field names for a refused stream message: the issues of the shape the client was evidently
 * sending (a cancel when it has `cancel`, else a request), not of zod's union as a whole.
 */
function streamDetails(raw: unknown, issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return [{ field: '', message: 'must be a JSON object {id, tool, request} or {id, cancel: true}' }];
  const r = ('cancel' in raw ? streamCancel : streamRequest).safeParse(raw);
  return issuesToDetails(r.success ? issues : r.error.issues, 'the stream');
}

/** A request's validation error, with field paths relative to the stream message (`request.environment`). */
function nestDetails(e: unknown, tool: string): unknown {
  if (!(e instanceof ServiceError) || !e.details) return e;
  const details = e.details.map((d) => ({ ...d, field: d.field ? `request.${d.field}` : 'request' }));
  return e.code === 'invalid_request'
    ? fieldsError(tool, details, (e.details as ClippedDetails).omitted)
    : e.withDetails(details);
}

export type { StreamLimits } from './stream-send.ts';
export { CLOSE_SLOW_READER } from './stream-send.ts';

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  sendBudgetBytes: 8 * 1024 * 1024,
  sendHardLimitBytes: 64 * 1024 * 1024,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 300_000,
};

/** Close code for a missed heartbeat. */
export const CLOSE_NO_PONG = 4001;

/**
 * Extra message kinds on this channel, by `tool` name, kept out of this file (proof search's
 * `goal.*`, src/search/service.ts): one connection object per socket, closed with it.
 */
export interface StreamExtension {
  handles(tool: string): boolean;
  connect(): {
    run(tool: string, request: unknown, signal: AbortSignal): Promise<unknown>;
    close(): void;
  };
}

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
    app.get('/v1/stream', { websocket: true }, (socket: WebSocket, request) => {
      const inFlight = new Map<string, AbortController>();
      const extension = opts.extension?.connect();
      drain.track(socket, inFlight);
      // Backpressure: results (cache hits included) are only sent while the client reads them.
      // Past the budget, stop reading its new requests; past the hard limit, close the socket.
      // Every event is bounded and no send throws (stream-send.ts).
      const { send } = createSender(socket, limits, request.log);
      // Heartbeat: a ping each interval; a socket that did not answer the previous one is gone.
      let alive = true;
      socket.on('pong', () => {
        alive = true;
      });
      const heartbeat = setInterval(() => {
        if (!alive) {
          socket.close(CLOSE_NO_PONG, 'no pong within the heartbeat interval');
          setTimeout(() => socket.terminate(), 1_000).unref();
          return;
        }
        alive = false;
        socket.ping();
      }, limits.pingIntervalMs);
      heartbeat.unref();
      // Idle timeout: nothing received and nothing in flight.
      let lastActivity = Date.now();
      const idle = setInterval(
        () => {
          if (inFlight.size === 0 && Date.now() - lastActivity >= limits.idleTimeoutMs) socket.close(1000, 'idle');
        },
        Math.min(limits.idleTimeoutMs, 10_000),
      );
      idle.unref();
      const fail = (id: string | null, err: unknown, requestId?: string) => {
        const se = toServiceError(err);
        if (se.code === 'internal') request.log.error({ err }, 'stream request failed');
        send({ ...errorEvent(id, se), ...(requestId ? { request_id: requestId } : {}) });
      };
      // A result with its info.request_id, remembered for sharing like an HTTP one.
      const answer = (id: string, tool: string, rid: string, inputs: object, result: object, cache: 'hit' | 'miss') => {
        const out = attachRequestId(result, rid);
        opts.links?.record(rid, { tool, caller: request.caller, inputs, result: out });
        send({ id, event: 'result', cache, result: out, request_id: rid });
      };

      // A listener that throws would end the process (ws emits from its parser): every message
      // is handled inside one guard, whose failure is answered as an error for the message's id.
      socket.on('message', (data, isBinary) => {
        try {
          onMessage(data, isBinary);
        } catch (err) {
          fail(null, err);
        }
      });
      const onMessage = (data: RawData, isBinary: boolean) => {
        lastActivity = Date.now();
        // The message's size: its response may be limits.responseFactor times it.
        const inputChars = isBinary ? 0 : (data as Buffer).length;
        // Every answer names the client's id when the message carried one, even if nothing else in it is valid.
        let id: string | null = null;
        let msg;
        try {
          if (isBinary) throw serviceError('invalid_request', 'binary_frame');
          // The same parser and prototype-poisoning rule as HTTP bodies (fastify's): a `__proto__` or
          // `constructor.prototype` key is malformed JSON on both channels, never silently dropped.
          const raw: unknown = sjson.parse(String(data), undefined, {
            protoAction: 'error',
            constructorAction: 'error',
          });
          const rawId = (raw as { id?: unknown } | null)?.id;
          if (typeof rawId === 'string' && rawId.length > 0) id = rawId;
          const parsed = streamClientMessage.safeParse(raw);
          if (!parsed.success) {
            const details = streamDetails(raw, parsed.error.issues);
            throw serviceError(
              'invalid_request',
              'stream_message',
              { problems: describeDetails(details) },
              { details },
            );
          }
          msg = parsed.data;
        } catch (e) {
          fail(
            id,
            e instanceof SyntaxError ? serviceError('malformed_json', 'stream_message', { reason: e.message }) : e,
          );
          return;
        }
        if ('cancel' in msg) {
          const ctrl = inFlight.get(msg.id);
          // The cancelled request itself answers with its `cancelled` error; an unknown id is answered here.
          if (ctrl) ctrl.abort(serviceError('cancelled', 'by_client'));
          else
            fail(
              msg.id,
              serviceError(
                'invalid_request',
                'cancel_unknown',
                { id: msg.id },
                { details: [{ field: 'id', message: 'no request with this id is in flight on this socket' }] },
              ),
            );
          return;
        }
        const { tool } = msg;
        id = msg.id;
        const reqId = id;
        // Shutting down: the documented 503 for each new request until the socket closes.
        if (opts.closing?.() || drain.draining)
          return fail(reqId, serviceError('overloaded', 'shutting_down', { what: 'the daemon' }));
        if (inFlight.has(reqId))
          return fail(
            reqId,
            serviceError(
              'invalid_request',
              'duplicate_id',
              { id: reqId },
              { details: [{ field: 'id', message: 'already in flight on this socket' }] },
            ),
          );
        if (extension && opts.extension!.handles(tool)) {
          const ctrl = new AbortController();
          inFlight.set(reqId, ctrl);
          extension
            .run(tool, msg.request, ctrl.signal)
            .then(
              (result) => send({ id: reqId, event: 'result', cache: 'miss', result }),
              (err: unknown) => fail(reqId, ctrl.signal.aborted ? serviceError('cancelled', 'by_client') : err),
            )
            .finally(() => {
              inFlight.delete(reqId);
              lastActivity = Date.now();
            });
          return;
        }
        if (!isToolName(tool)) return fail(reqId, unknownTool(tool));
        // Validation, environment and cache before `queued`: a refused request is never announced as queued.
        const info: { deadlineSeconds?: number; cache?: 'hit' | 'miss' } = {};
        let prepared;
        try {
          prepared = pipeline.prepare(tool, msg.request, info);
        } catch (e) {
          return fail(reqId, nestDetails(e, tool));
        }
        // A hit is stored as bytes (the HTTP hot path); the stream sends an object, so it pays one parse.
        const rid = newRequestId();
        if ('hit' in prepared)
          return answer(reqId, tool, rid, msg.request, JSON.parse(prepared.hit.body.toString('utf8')) as object, 'hit');
        // An environment that cannot run the Lean it needs: refused at once, never announced as queued.
        const refused = pipeline.refusal(prepared.miss);
        if (refused) return fail(reqId, refused, rid);
        const ctrl = new AbortController();
        inFlight.set(reqId, ctrl);
        send({ id: reqId, event: 'queued', request_id: rid });
        pipeline
          .execute(prepared.miss, {
            caller: request.caller,
            log: request.log,
            signal: ctrl.signal,
            info,
            inputChars,
            clientAddress: request.ip,
            onStarted: () =>
              send({ id: reqId, event: 'started', deadline_seconds: info.deadlineSeconds, request_id: rid }),
            progress: (p) =>
              send({ id: reqId, event: 'progress', stage: p.stage, done: p.done, total: p.total, request_id: rid }),
          })
          .then(
            (result) => answer(reqId, tool, rid, msg.request, result, info.cache ?? 'miss'),
            (err: unknown) => {
              if (ctrl.signal.aborted && !(err instanceof ServiceError && err.code === 'timeout'))
                fail(reqId, serviceError('cancelled', 'by_client'), rid);
              else fail(reqId, err, rid);
            },
          )
          .finally(() => {
            inFlight.delete(reqId);
            lastActivity = Date.now();
          });
      };
      socket.on('close', () => {
        clearInterval(heartbeat);
        clearInterval(idle);
        for (const ctrl of inFlight.values()) ctrl.abort(serviceError('cancelled', 'socket_closed'));
        inFlight.clear();
        extension?.close();
      });
    });
  });
}
