/**
 * `info.request_id` (AXLE's newer API: every tool response's `info` carries one; its MCP server
 * passes it to `POST /v1/shared-links`). Each request gets its own UUID, cache hits included.
 *
 * The hit path sends the cached body as stored bytes; the id is spliced in before the body's
 * closing brace rather than parsing and re-serialising the object (a copy of the bytes, no
 * JSON work). A cached body never holds `info`: results are cached without it.
 */
import { randomUUID } from 'node:crypto';

export interface RequestInfo {
  request_id: string;
}

/** A fresh request id (crypto.randomUUID: a v4 UUID from a pre-filled entropy cache). */
export const newRequestId = (): string => randomUUID();

const CLOSE = 0x7d; // '}'

/** A serialised JSON object with `"info":{"request_id":…}` added as its last member. */
export function withRequestId(body: Buffer, id: string): Buffer {
  const end = body.lastIndexOf(CLOSE);
  if (end < 0) return body;
  // `{}` (or `{ }`) has no member to follow: no comma.
  let i = end - 1;
  while (i >= 0 && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i--;
  const empty = i >= 0 && body[i] === 0x7b;
  // A UUID needs no JSON escaping.
  const tail = `${empty ? '' : ','}"info":{"request_id":"${id}"}}`;
  // One buffer, written in place: no Buffer of the tail, no list for concat.
  const out = Buffer.allocUnsafe(end + tail.length);
  body.copy(out, 0, 0, end);
  out.write(tail, end, 'latin1');
  return out;
}

/** A result object with the request id in its `info` (other `info` members kept); the original is not changed. */
export function attachRequestId<T extends object>(result: T, id: string): T & { info: RequestInfo } {
  const info = (result as { info?: unknown }).info;
  return {
    ...result,
    info: { ...(info && typeof info === 'object' ? info : {}), request_id: id },
  };
}

/**
 * The log lines' `reqId` (fastify's default form, `req-<base 36 counter>`), one counter shared by
 * fastify (its `genReqId`) and the hit front (src/server/hit-front.ts), so ids stay unique.
 */
export class ReqIds {
  #n = 0;
  readonly next = (): string => {
    this.#n = (this.#n + 1) & 0x7fffffff;
    return `req-${this.#n.toString(36)}`;
  };
}
