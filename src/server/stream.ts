/**
 * The WebSocket channel `/v1/stream`: a client sends `{id, tool, request}`; the daemon
 * answers with `queued`, `started`, `progress` (command i of n elaborated), then one
 * `result` or `error` per id. Several ids may be in flight on one socket; `{id, cancel:
 * true}` or closing the socket aborts them, which frees (kills and replaces) their sessions.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../admission/keys.ts';
import type { WebSocket } from 'ws';
import { streamClientMessage, type StreamClientMessage, type StreamEvent } from '../contract/stream.ts';
import { isToolName } from '../contract/tools.ts';
import { describeDetails, issuesToDetails, unknownTool } from '../contract/validate.ts';
import { ServiceError, serviceError } from '../errors.ts';
import { toServiceError } from './error-handler.ts';
import type { Pipeline } from './pipeline.ts';

export async function registerStream(parent: FastifyInstance, pipeline: Pipeline, opts: { maxPayloadBytes: number; authorize: (request: FastifyRequest) => Caller }): Promise<void> {
  // An encapsulated context: the websocket plugin's per-request hooks then apply to this route only.
  await parent.register(async (app) => {
    await app.register(websocket, { options: { maxPayload: opts.maxPayloadBytes } });
    // Refuse a bad key before the upgrade (a plain 401 response).
    app.addHook('preValidation', async (request) => {
      opts.authorize(request);
    });
    app.get('/v1/stream', { websocket: true }, (socket: WebSocket, request) => {
      const inFlight = new Map<string, AbortController>();
      const send = (e: StreamEvent) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(e));
      };
      const fail = (id: string | null, err: unknown) => {
        const se = toServiceError(err);
        if (se.code === 'internal') request.log.error({ err }, 'stream request failed');
        send({ id, event: 'error', error: se.toBody().error });
      };

      socket.on('message', (data, isBinary) => {
        let msg: StreamClientMessage;
        try {
          if (isBinary) throw serviceError('invalid_request', 'binary_frame');
          const parsed = streamClientMessage.safeParse(JSON.parse(String(data)));
          if (!parsed.success) {
            const details = issuesToDetails(parsed.error.issues, 'the stream');
            throw serviceError('invalid_request', 'stream_message', { problems: describeDetails(details) }, { details });
          }
          msg = parsed.data;
        } catch (e) {
          const id = typeof (e as { id?: unknown }).id === 'string' ? String((e as { id: string }).id) : null;
          fail(id, e instanceof SyntaxError ? serviceError('malformed_json', 'stream_message', { reason: e.message }) : e);
          return;
        }
        if ('cancel' in msg) {
          inFlight.get(msg.id)?.abort(serviceError('cancelled', 'by_client'));
          return;
        }
        const { id, tool } = msg;
        if (inFlight.has(id)) return fail(id, serviceError('invalid_request', 'duplicate_id', { id }));
        if (!isToolName(tool)) return fail(id, unknownTool(tool));
        const ctrl = new AbortController();
        inFlight.set(id, ctrl);
        send({ id, event: 'queued' });
        const info: { deadlineSeconds?: number; cache?: 'hit' | 'miss' } = {};
        pipeline
          .run(tool, msg.request, {
            caller: request.caller,
            log: request.log,
            signal: ctrl.signal,
            info,
            onStarted: () => send({ id, event: 'started', deadline_seconds: info.deadlineSeconds }),
            progress: (p) => send({ id, event: 'progress', stage: p.stage, done: p.done, total: p.total }),
          })
          .then(
            (result) => send({ id, event: 'result', cache: info.cache ?? 'miss', result }),
            (err: unknown) => {
              if (ctrl.signal.aborted && !(err instanceof ServiceError && err.code === 'timeout')) fail(id, serviceError('cancelled', 'by_client'));
              else fail(id, err);
            },
          )
          .finally(() => inFlight.delete(id));
      });
      socket.on('close', () => {
        for (const ctrl of inFlight.values()) ctrl.abort(serviceError('cancelled', 'socket_closed'));
        inFlight.clear();
      });
    });
  });
}
