/**
 * One `/v1/stream` socket: its requests in flight, keepalive (heartbeat and idle timeout), and
 * each message taken through named steps: read it, cancel, admit (draining, duplicate ids), then
 * run it on the extension (proof search's `goal.*`) or the tool pipeline.
 */
import type { FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { isToolName, type ToolName } from '../contract/tools.ts';
import { unknownTool } from '../contract/validate.ts';
import { ServiceError, serviceError, TIMEOUT_CODES } from '../errors.ts';
import { toServiceError } from './error-handler.ts';
import { createSender, errorEvent, type StreamLimits } from './stream-send.ts';
import type { StreamDrain } from './stream-drain.ts';
import { nestDetails, readMessage, type StreamRequest } from './stream-message.ts';
import type { Pipeline, RunInfo } from './pipeline.ts';
import type { Provenance } from '../envs/provenance.ts';
import { attachRequestId, newRequestId } from './request-id.ts';
import { responseText } from './response-text.ts';
import type { SharedLinks } from './shared-links.ts';
import type { Caller } from '../admission/keys.ts';
import { DeferredBody } from './deferred-body.ts';
import { deferredMessage } from './stream-deferred.ts';
import { MalformedBody, SerializedResult } from '../workers/raw-request.ts';

/** Close code for a missed heartbeat. */
export const CLOSE_NO_PONG = 4001;

/**
 * Extra message kinds on this channel, by `tool` name, kept out of this file (proof search's
 * `goal.*`, src/search/service.ts): one connection object per socket, closed with it.
 */
export interface StreamExtension {
  handles(tool: string): boolean;
  /**
   * `caller.id` names the caller its caps count (an API key, or an anonymous caller by address);
   * `admit` takes one of the caller's admission slots, as an HTTP request does.
   */
  connect(caller: { id: string; admit: (signal: AbortSignal) => Promise<() => void> }): {
    run(tool: string, request: unknown, signal: AbortSignal): Promise<unknown>;
    close(): void;
  };
}

/** What every socket of the route shares. */
export interface StreamContext {
  pipeline: Pipeline;
  limits: StreamLimits;
  drain: StreamDrain;
  closing?: (() => boolean) | undefined;
  links?: SharedLinks | undefined;
  extension?: StreamExtension | undefined;
  /** Result events say `cache: hit|miss` (config server.cacheStatus). */
  cacheStatus?: boolean;
  /** The per-caller admission of every request (the limiter): extension messages that run Lean take it too. */
  admit?: ((caller: Caller, signal: AbortSignal) => Promise<() => void>) | undefined;
}

export class StreamConnection {
  readonly #inFlight = new Map<string, AbortController>();
  readonly #extension: ReturnType<StreamExtension['connect']> | undefined;
  readonly #send: ReturnType<typeof createSender>['send'];
  #lastActivity = Date.now();
  #timers: NodeJS.Timeout[] = [];

  constructor(
    readonly socket: WebSocket,
    readonly request: FastifyRequest,
    readonly ctx: StreamContext,
  ) {
    this.#extension = ctx.extension?.connect(this.#caller());
    ctx.drain.track(socket, this.#inFlight);
    // Backpressure: results (cache hits included) are only sent while the client reads them.
    // Past the budget, stop reading its new requests; past the hard limit, close the socket.
    // Every event is bounded and no send throws (stream-send.ts).
    this.#send = createSender(socket, ctx.limits, request.log).send;
    this.#keepalive();
    // A listener that throws would end the process (ws emits from its parser): every message
    // is handled inside one guard, whose failure is answered as an error for the message's id.
    socket.on('message', (data, isBinary) => {
      try {
        this.#onMessage(data, isBinary);
      } catch (err) {
        this.#fail(null, err);
      }
    });
    socket.on('close', () => this.#close());
  }

  /** Who this socket's extension messages count against: a key, or an anonymous caller by its address. */
  #caller(): { id: string; admit: (signal: AbortSignal) => Promise<() => void> } {
    const { caller, ip } = this.request;
    const admit = this.ctx.admit;
    return {
      id: caller.keyClass === 'anonymous' ? `anonymous@${ip}` : caller.id,
      admit: admit ? (signal) => admit(caller, signal) : async () => () => {},
    };
  }

  /** Heartbeat: a ping each interval, a socket that did not answer the previous one is gone; idle: nothing received and nothing in flight. */
  #keepalive(): void {
    const { socket, ctx } = this;
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
    }, ctx.limits.pingIntervalMs);
    const idleMs = ctx.limits.idleTimeoutMs;
    const idle = setInterval(
      () => {
        if (this.#inFlight.size === 0 && Date.now() - this.#lastActivity >= idleMs) socket.close(1000, 'idle');
      },
      Math.min(idleMs, 10_000),
    );
    this.#timers = [heartbeat, idle];
    for (const t of this.#timers) t.unref();
  }

  #close(): void {
    for (const t of this.#timers) clearInterval(t);
    for (const ctrl of this.#inFlight.values()) ctrl.abort(serviceError('cancelled', 'socket_closed'));
    this.#inFlight.clear();
    this.#extension?.close();
  }

  #fail(id: string | null, err: unknown, requestId?: string): void {
    const se = toServiceError(err);
    if (se.code === 'internal') this.request.log.error({ err }, 'stream request failed');
    this.#send({ ...errorEvent(id, se), ...(requestId ? { request_id: requestId } : {}) });
  }

  /** A result with its info.request_id, remembered for sharing like an HTTP one (a deferred request by its text). */
  #answer(
    msg: StreamRequest,
    rid: string,
    result: object,
    cache: 'hit' | 'miss',
    inputs?: string,
    provenance?: Provenance,
  ): void {
    const caller = this.request.caller;
    const shown = this.ctx.cacheStatus ? { cache } : {};
    if (result instanceof SerializedResult) {
      // A worker's answer to a large request, as its text: sent as it is, never rebuilt here.
      const text = responseText(result, rid, undefined, provenance);
      this.ctx.links?.record(rid, { tool: msg.tool, caller, inputs: inputs ?? msg.request, result: text });
      return this.#send({ id: msg.id, event: 'result', ...shown, result: {}, request_id: rid }, text);
    }
    const out = attachRequestId(result, rid, provenance?.info);
    this.ctx.links?.record(rid, { tool: msg.tool, caller, inputs: inputs ?? msg.request, result: out });
    this.#send({ id: msg.id, event: 'result', ...shown, result: out, request_id: rid });
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    this.#lastActivity = Date.now();
    // A large request is read on a worker (stream-deferred.ts); anything else about it, here, as for any message.
    const deferred = isBinary ? undefined : deferredMessage(data as Buffer, this.ctx.pipeline.limits);
    const envelope = deferred && readMessage(deferred.envelope, false);
    if (envelope?.ok && !('cancel' in envelope.msg) && this.#offThread(envelope.msg.tool)) {
      const refusal = this.#admission(envelope.msg.id);
      if (refusal) return this.#fail(envelope.msg.id, refusal);
      return this.#runDeferred(envelope.msg, deferred!.request, (data as Buffer).length);
    }
    const read = readMessage(data, isBinary);
    if (!read.ok) return this.#fail(read.id, read.error);
    const msg = read.msg;
    if ('cancel' in msg) return this.#cancel(msg.id);
    const refusal = this.#admission(msg.id);
    if (refusal) return this.#fail(msg.id, refusal);
    if (this.#extension && this.ctx.extension!.handles(msg.tool)) return this.#runExtension(msg);
    // The message's size: its response may be limits.responseFactor times it.
    this.#runTool(msg, isBinary ? 0 : (data as Buffer).length);
  }

  /** The cancelled request itself answers with its `cancelled` error; an unknown id is answered here. */
  #cancel(id: string): void {
    const ctrl = this.#inFlight.get(id);
    if (ctrl) return ctrl.abort(serviceError('cancelled', 'by_client'));
    const details = [{ field: 'id', message: 'no request with this id is in flight on this socket' }];
    this.#fail(id, serviceError('invalid_request', 'cancel_unknown', { id }, { details }));
  }

  /** Why a new request is refused before anything else: the daemon drains (the documented 503), or its id is taken. */
  #admission(id: string): ServiceError | undefined {
    if (this.ctx.closing?.() || this.ctx.drain.draining)
      return serviceError('overloaded', 'shutting_down', { what: 'the daemon' });
    if (this.#inFlight.has(id)) {
      const details = [{ field: 'id', message: 'already in flight on this socket' }];
      return serviceError('invalid_request', 'duplicate_id', { id }, { details });
    }
    return undefined;
  }

  /** Track `id` until `work` settles. */
  #track(id: string, work: (signal: AbortSignal) => Promise<void>): AbortController {
    const ctrl = new AbortController();
    this.#inFlight.set(id, ctrl);
    void work(ctrl.signal).finally(() => {
      this.#inFlight.delete(id);
      this.#lastActivity = Date.now();
    });
    return ctrl;
  }

  #runExtension(msg: StreamRequest): void {
    this.#track(msg.id, (signal) =>
      this.#extension!.run(msg.tool, msg.request, signal).then(
        (result) => this.#send({ id: msg.id, event: 'result', cache: 'miss', result }),
        (err: unknown) => this.#fail(msg.id, signal.aborted ? serviceError('cancelled', 'by_client') : err),
      ),
    );
  }

  #runTool(msg: StreamRequest, inputChars: number): void {
    const { tool, id } = msg;
    const { pipeline } = this.ctx;
    if (!isToolName(tool)) return this.#fail(id, unknownTool(tool));
    // Validation, environment and cache before `queued`: a refused request is never announced as queued.
    const info: RunInfo = {};
    let prepared;
    try {
      prepared = pipeline.prepare(tool, msg.request, info);
    } catch (e) {
      return this.#fail(id, nestDetails(e, tool));
    }
    const rid = newRequestId();
    // A hit is stored as bytes (the HTTP hot path); the stream sends an object, so it pays one parse.
    if ('hit' in prepared)
      return this.#answer(msg, rid, JSON.parse(prepared.hit.body.toString('utf8')) as object, 'hit');
    // An environment that cannot run the Lean it needs: refused at once, never announced as queued.
    const refused = pipeline.refusal(prepared.miss);
    if (refused) return this.#fail(id, refused, rid);
    const miss = prepared.miss;
    this.#track(id, (signal) => this.#execute(msg, miss, rid, info, inputChars, signal));
  }

  /** Whether `tool`'s large requests are read on a worker: a pipeline tool the worker threads run. */
  #offThread(tool: string): boolean {
    return !(this.#extension && this.ctx.extension!.handles(tool)) && this.ctx.pipeline.parsesOffThread(tool);
  }

  /** #runTool for a request left as text: validated, keyed and looked up on a worker first, tracked from the start. */
  #runDeferred(msg: StreamRequest, text: string, inputChars: number): void {
    const { id } = msg;
    const tool = msg.tool as ToolName;
    const { pipeline } = this.ctx;
    const info: RunInfo = {};
    const rid = newRequestId();
    const from = { caller: this.request.caller, clientAddress: this.request.ip };
    this.#track(id, async (signal) => {
      let prepared;
      try {
        prepared = await pipeline.prepareDeferred(tool, new DeferredBody(text, null), info, undefined, {
          ...from,
          signal,
        });
      } catch (e) {
        return this.#fail(id, signal.aborted ? serviceError('cancelled', 'by_client') : streamError(e, tool));
      }
      if ('hit' in prepared)
        return this.#answer(msg, rid, JSON.parse(prepared.hit.body.toString('utf8')) as object, 'hit', text);
      const refused = pipeline.refusal(prepared.miss);
      if (refused) return this.#fail(id, refused, rid);
      await this.#execute(msg, prepared.miss, rid, info, inputChars, signal, text);
    });
  }

  async #execute(
    msg: StreamRequest,
    miss: Parameters<Pipeline['execute']>[0],
    rid: string,
    info: RunInfo,
    inputChars: number,
    signal: AbortSignal,
    inputs?: string,
  ): Promise<void> {
    const id = msg.id;
    const { request } = this;
    this.#send({ id, event: 'queued', request_id: rid });
    try {
      const result = await this.ctx.pipeline.execute(miss, {
        caller: request.caller,
        log: request.log,
        signal,
        info,
        inputChars,
        clientAddress: request.ip,
        onStarted: () => this.#send({ id, event: 'started', deadline_seconds: info.deadlineSeconds, request_id: rid }),
        progress: (p) =>
          this.#send({ id, event: 'progress', stage: p.stage, done: p.done, total: p.total, request_id: rid }),
      });
      this.#answer(msg, rid, result, info.cache ?? 'miss', inputs, info.provenance);
    } catch (err) {
      const cancelled = signal.aborted && !(err instanceof ServiceError && TIMEOUT_CODES.has(err.code));
      this.#fail(id, cancelled ? serviceError('cancelled', 'by_client') : err, rid);
    }
  }
}

/**
 * A deferred request's error as the stream words it: a request that is not JSON the daemon takes
 * as readMessage says it (stream-message.ts), validation details under `request.`.
 */
function streamError(e: unknown, tool: string): unknown {
  if (!(e instanceof MalformedBody)) return nestDetails(e, tool);
  return serviceError('malformed_json', 'stream_message', {
    reason: e.reason ?? 'Object contains forbidden prototype property',
  });
}
