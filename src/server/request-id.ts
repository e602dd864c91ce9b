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
const MEMBER = Buffer.from(',"info":{"request_id":"', 'latin1');
const FIRST_MEMBER = MEMBER.subarray(1);

/**
 * A serialised JSON object with `"info":{"request_id":…}` added as its last member: one buffer,
 * filled in place (the body, the member's fixed text, the id's characters: a UUID is ASCII and
 * needs no escaping), no string of the tail to encode (on a cache hit, building the response with
 * `Buffer.concat` or `write` of a tail string was ~1.5 µs under load).
 */
export function withRequestId(body: Buffer, id: string): Buffer {
  let end = body.length - 1;
  while (end >= 0 && body[end] !== CLOSE) end--;
  if (end < 0) return body;
  // `{}` (or `{ }`) has no member to follow: no comma.
  let i = end - 1;
  while (i >= 0 && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i--;
  const member = i >= 0 && body[i] === 0x7b ? FIRST_MEMBER : MEMBER;
  const out = Buffer.allocUnsafe(end + member.length + id.length + 3);
  out.set(end === body.length - 1 ? body : body.subarray(0, end));
  out.set(member, end);
  let o = end + member.length;
  for (let k = 0; k < id.length; k++) out[o++] = id.charCodeAt(k);
  out[o++] = 0x22; // '"'
  out[o++] = CLOSE;
  out[o] = CLOSE;
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
