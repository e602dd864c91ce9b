/**
 * `info.request_id` (AXLE's newer API: every tool response's `info` carries one; its MCP server
 * passes it to `POST /v1/shared-links`). Each request gets its own UUID, cache hits included.
 *
 * The hit path sends the cached body as stored bytes, its own id written over the stored `info`'s
 * placeholder (after the provenance members, src/envs/provenance.ts) rather than parsing and
 * re-serialising the object (a copy of the bytes, no JSON work). A cached body never holds a
 * request's id: results are cached with a placeholder.
 */
import { randomFillSync } from 'node:crypto';
import { STORED_ID, STORED_ID_END } from '../cache/result-cache.ts';

export interface RequestInfo {
  request_id: string;
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Where a UUID's 32 hex digits stand in `xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx` (the dashes at 8, 13, 18, 23). */
export const UUID_HEX_AT: readonly number[] = Array.from({ length: 36 }, (_, i) => i).filter(
  (i) => i !== 8 && i !== 13 && i !== 18 && i !== 23,
);
/** Where each random byte's two hex digits begin. */
const DIGITS_AT = UUID_HEX_AT.filter((_, k) => k % 2 === 0);
/** Entropy for 256 ids, refilled from the CSPRNG when used up (as crypto.randomUUID caches 128). */
const entropy = Buffer.allocUnsafeSlow(16 * 256);
let used = entropy.length;
const text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/**
 * A fresh request id: a random (version 4) UUID from the CSPRNG, as crypto.randomUUID makes
 * one, written as one flat string (randomUUID's is a concatenation, flattened again by every
 * later read, dearer than this one).
 */
export function newRequestId(): string {
  if (used === entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  const at = used;
  used += 16;
  entropy[at + 6] = (entropy[at + 6]! & 0x0f) | 0x40; // version 4
  entropy[at + 8] = (entropy[at + 8]! & 0x3f) | 0x80; // variant 10
  for (let k = 0; k < 16; k++) {
    const b = entropy[at + k]!;
    const p = DIGITS_AT[k]!;
    text[p] = HEX[b >> 4]!;
    text[p + 1] = HEX[b & 15]!;
  }
  return text.toString('latin1');
}

const CLOSE = 0x7d; // '}'
const MEMBER = Buffer.from(',"info":{"request_id":"', 'latin1');
const FIRST_MEMBER = MEMBER.subarray(1);
/** A stored body's last bytes (ResultCache, storedInfo): its id's member, the placeholder id, and the closing. */
const ID_KEY = Buffer.from('"request_id":"', 'latin1');
const ID_SLOT = STORED_ID.length + STORED_ID_END.length;
const EMPTY = Buffer.alloc(0);

/**
 * A serialised JSON object with this request's id as `info.request_id`: in place of a stored
 * result's placeholder (ResultCache), else as a new last member. The hit front writes the two
 * parts (requestIdParts) without joining them.
 */
export function withRequestId(body: Buffer, id: string): Buffer {
  const [head, tail] = requestIdParts(body, id);
  return tail.length === 0 ? head : Buffer.concat([head, tail], head.length + tail.length);
}

/** Whether `body` ends as a stored result does: `"request_id":"<placeholder>"}}` (ResultCache storedInfo). */
function endsInStoredId(body: Buffer): boolean {
  const at = body.length - ID_SLOT - ID_KEY.length;
  if (at < 0 || body[body.length - 1] !== CLOSE) return false;
  // Byte by byte: a subarray and `equals` per hit cost more than these 14 comparisons.
  for (let k = 0; k < ID_KEY.length; k++) if (body[at + k] !== ID_KEY[k]) return false;
  return true;
}

/**
 * The same bytes in two parts, to be written one after the other: a view of `body` (no copy) and
 * what follows it, filled in place (a UUID is ASCII and needs no escaping; no string of the tail
 * to encode). A stored result (ResultCache) ends in its `info` with a placeholder id at a fixed
 * distance from the end: the view stops before it and the tail is this id and the closing
 * braces (the provenance before it kept as stored). Any other object gets `"info":{"request_id":…}`
 * as its last member. A body with no object is returned whole, with an empty tail.
 */
export function requestIdParts(body: Buffer, id: string): [Buffer, Buffer] {
  if (endsInStoredId(body)) {
    // The id, then STORED_ID_END (`"}}`).
    const tail = Buffer.allocUnsafe(id.length + 3);
    let o = 0;
    for (; o < id.length; o++) tail[o] = id.charCodeAt(o);
    tail[o++] = 0x22; // '"'
    tail[o++] = CLOSE;
    tail[o] = CLOSE;
    return [body.subarray(0, body.length - ID_SLOT), tail];
  }
  let end = body.length - 1;
  while (end >= 0 && body[end] !== CLOSE) end--;
  if (end < 0) return [body, EMPTY];
  // `{}` (or `{ }`) has no member to follow: no comma.
  let i = end - 1;
  while (i >= 0 && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i--;
  const member = i >= 0 && body[i] === 0x7b ? FIRST_MEMBER : MEMBER;
  const tail = Buffer.allocUnsafe(member.length + id.length + 3);
  tail.set(member);
  let o = member.length;
  for (let k = 0; k < id.length; k++) tail[o++] = id.charCodeAt(k);
  tail[o++] = 0x22; // '"'
  tail[o++] = CLOSE;
  tail[o] = CLOSE;
  return [body.subarray(0, end), tail];
}

/**
 * A result object with the request id in its `info`, after the provenance `executor` gives
 * (src/envs/provenance.ts) and the result's own `info` members; the original is not changed.
 */
export function attachRequestId<T extends object>(result: T, id: string, executor?: object): T & { info: RequestInfo } {
  const info = (result as { info?: unknown }).info;
  return {
    ...result,
    info: { ...executor, ...(info && typeof info === 'object' ? info : {}), request_id: id },
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
