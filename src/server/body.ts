/**
 * Body parsing: every body is parsed as JSON, whatever its Content-Type says, or without
 * one (ARCHITECTURE: "JSON in, whatever the Content-Type header says, as AXLE accepts").
 * The public AXLE client posts a JSON string with aiohttp's `data=` (labelled text/plain),
 * and AXLE's documented curl examples send `-d '{…}'` with no type, which curl labels
 * application/x-www-form-urlencoded; the hosted service accepts both. Every other check
 * stays: the body limit, fastify's prototype-poisoning refusal, and the schema.
 */
import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { clip, serviceError } from '../errors.ts';
import { preReadBody } from './hit-front.ts';
import { DeferredBody } from './deferred-body.ts';

/**
 * fastify's JSON parser says "content-type is set to 'application/json'" whatever the request
 * sent; the error names the type the body really came with, and JSON's own reason (parsed again
 * only on this error path).
 */
function malformed(body: string, contentType: string | undefined): Error {
  let reason: string | null = null;
  try {
    JSON.parse(body);
  } catch (e) {
    reason = (e as Error).message;
  }
  return malformedBody(reason, contentType);
}

/**
 * The malformed_json error for a body: `reason` is JSON's own, or null when it is valid JSON
 * refused all the same by fastify's prototype-poisoning rule (protoAction 'error'). Also for a
 * large body parsed on a worker (src/workers/raw-request.ts).
 */
export function malformedBody(reason: string | null, contentType: string | undefined): Error {
  return serviceError('malformed_json', 'body_as', {
    reason:
      reason === null
        ? 'it holds a "__proto__" or "constructor.prototype" key, refused as prototype poisoning'
        : clip(reason, 160),
    type: contentType ? `as ${clip(contentType.split(';')[0]!.trim(), 60)}` : 'without a Content-Type',
  });
}

/** The body of a request answered from the cache before parsing (src/server/hit-path.ts): nothing was parsed. */
export const UNPARSED_HIT = Object.freeze({});

export interface BodyParserOptions {
  /** Asked before parsing: true means the raw bytes already have their answer and are not parsed. */
  answeredRaw?: (request: FastifyRequest, raw: string) => boolean;
  /**
   * Asked before parsing: an error refuses the body unparsed (input limits counted on the text,
   * before any object is built); a DeferredBody is taken as the body, unparsed (parsed on a worker thread).
   */
  screenRaw?: (raw: string, request: FastifyRequest) => Error | DeferredBody | undefined;
  /** Asked before parsing: an object is taken as the parsed body, the text left unparsed (src/server/adapters/mcp-limits.ts). */
  replacedRaw?: (request: FastifyRequest, raw: string) => object | undefined;
}

type Done = (err: Error | null, body?: unknown) => void;

/**
 * Every body is read as fastify's `parseAs: 'string'` parsers read it, with its checks and
 * errors (lib/content-type-parser.js `rawBody`, fastify v5.12.8): a Content-Length above the
 * limit is refused before reading, a body growing past it while read, a read error is a 400
 * (unless it carries a client-error status), a body whose size is not its Content-Length is
 * refused, and the bytes are decoded as UTF-8 once, whole. A body the hit front already read
 * (src/server/hit-front.ts) is taken as it is, with its lookup: wrapping its chunks in a new
 * Readable for fastify to read again cost a miss a preParsing hook, a stream with its ticks and
 * listeners, and ~3 KB of allocation (measured: see docs/hot-paths.md, "A miss").
 */
export function registerBodyParsers(app: FastifyInstance, opts: BodyParserOptions = {}): void {
  const limit = app.initialConfig.bodyLimit!;
  refuseRouteBodyLimits(app, limit);
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('rawLookup', undefined);
  const keepRaw = rawKeeper(app, opts);
  // Not a closure per request: every request's body goes through this one function.
  const parse = (req: FastifyRequest, payload: IncomingMessage, done: Done): void => {
    const contentLength = Number(req.headers['content-length']);
    if (contentLength > limit) return done(new FST_ERR_CTP_BODY_TOO_LARGE());
    const pre = preReadBody(req.raw);
    if (!pre) {
      new PayloadRead(payload, contentLength, limit, (text) =>
        typeof text === 'string' ? keepRaw(req, text, done) : done(text),
      );
      return;
    }
    req.rawLookup = pre.lookup;
    if (pre.error) return done(asClientError(pre.error));
    const text = bodyText(pre.chunks, byteLength(pre.chunks), contentLength, limit, pre.text);
    if (typeof text === 'string') keepRaw(req, text, done);
    else done(text);
  };
  app.removeAllContentTypeParsers();
  // '*' is fastify's catch-all: any media type, and requests that carry a body without one.
  app.addContentTypeParser('*', parse);
  // The same parser named for the usual type too: fastify caches a named type's parser by the
  // header's text, while the catch-all is found anew (content-type parsed, two cache misses)
  // on every request, a visible share of a cache hit's CPU.
  app.addContentTypeParser('application/json', parse);
}

/**
 * The parser reads against the daemon's one body limit (server.bodyLimitBytes), as the hit
 * front does: a route with a limit of its own (fastify's route option) would not be honoured by
 * either, so none may have one.
 */
function refuseRouteBodyLimits(app: FastifyInstance, limit: number): void {
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit !== undefined && route.bodyLimit !== limit)
      throw new Error(`route ${route.url}: a bodyLimit of its own is not supported (server.bodyLimitBytes applies)`);
  });
}

/** Keeps the raw string on the request, asks whether it is answered or refused as it stands, else parses it. */
function rawKeeper(app: FastifyInstance, opts: BodyParserOptions) {
  const json = app.getDefaultJsonParser('error', 'error');
  const answeredRaw = opts.answeredRaw;
  // Keep the raw string too: byte-identical repeats are answered from the cache without parsing or validation.
  return (req: FastifyRequest, raw: string, done: Done): void => {
    (req as { rawBody?: string }).rawBody = raw;
    if (answeredRaw?.(req, raw)) return done(null, UNPARSED_HIT);
    const screened = opts.screenRaw?.(raw, req);
    if (screened instanceof DeferredBody) return done(null, screened);
    if (screened) return done(screened, undefined);
    const replaced = opts.replacedRaw?.(req, raw);
    if (replaced) return done(null, replaced);
    json(req, raw, (err, parsed) => {
      if ((err as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
        done(malformed(raw, req.headers['content-type']), undefined);
      else done(err, parsed);
    });
  };
}

const { FST_ERR_CTP_BODY_TOO_LARGE, FST_ERR_CTP_INVALID_CONTENT_LENGTH } = errorCodes;

/** A read error is a 400 unless it already carries a client-error status (as fastify marks it). */
function asClientError(err: Error & { statusCode?: unknown }): Error {
  if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
  return err;
}

function byteLength(chunks: Buffer[]): number {
  let n = 0;
  for (const c of chunks) n += c.length;
  return n;
}

/**
 * The body's text (`decoded` when the hit front has it already), or fastify's error when its
 * `length` bytes break the limit or the Content-Length.
 */
function bodyText(
  chunks: Buffer[],
  length: number,
  contentLength: number,
  limit: number,
  decoded?: string,
): string | Error {
  if (length > limit) return new FST_ERR_CTP_BODY_TOO_LARGE();
  if (!Number.isNaN(contentLength) && length !== contentLength) return new FST_ERR_CTP_INVALID_CONTENT_LENGTH();
  if (decoded !== undefined) return decoded;
  // Decoded whole: a multi-byte character split across chunks stays intact.
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, length).toString('utf8');
}

/** A payload fastify hands a parser: the request, or what a preParsing hook made of it. */
type Payload = IncomingMessage & { receivedEncodedLength?: number };

/**
 * A body read from its stream (a request the hit front did not read: `inject`, a chunked body,
 * another route): rawBody's steps. Its listeners are bound methods, not named closures
 * (docs/hot-paths.md: esbuild's keepNames).
 */
class PayloadRead {
  readonly #chunks: Buffer[] = [];
  #length = 0;
  readonly #data = this.#onData.bind(this);
  readonly #end = this.#onEnd.bind(this);

  constructor(
    readonly payload: Payload,
    readonly contentLength: number,
    readonly limit: number,
    readonly settle: (text: string | Error) => void,
  ) {
    payload.on('data', this.#data).on('end', this.#end).on('error', this.#end);
    payload.resume();
  }

  #onData(chunk: Buffer | string): void {
    // A preParsing stream may emit strings.
    const c = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#length += c.length;
    if (this.#length > this.limit || (this.payload.receivedEncodedLength ?? 0) > this.limit) {
      this.#stop();
      return this.settle(new FST_ERR_CTP_BODY_TOO_LARGE());
    }
    this.#chunks.push(c);
  }

  #onEnd(err?: Error | null): void {
    this.#stop();
    if (err != null) return this.settle(asClientError(err));
    // A preParsing stream that decodes reports the length it received (rawBody reads that one).
    const received = this.payload.receivedEncodedLength || this.#length;
    if (!Number.isNaN(this.contentLength) && received !== this.contentLength)
      return this.settle(new FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    this.settle(bodyText(this.#chunks, this.#length, Number.NaN, Infinity));
  }

  #stop(): void {
    this.payload.removeListener('data', this.#data).removeListener('end', this.#end).removeListener('error', this.#end);
  }
}
