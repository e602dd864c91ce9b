/**
 * `info.request_id` (AXLE's newer API: every tool response's `info` carries one; its MCP server
 * passes it to `POST /v1/shared-links`). Each request gets its own UUID, cache hits included.
 *
 * The hit path sends the cached body as stored bytes; the id is spliced into the stored `info`
 * (its provenance members, src/envs/provenance.ts) before its closing brace rather than parsing
 * and re-serialising the object (a copy of the bytes, no JSON work). A cached body never holds a
 * request id: results are cached without one.
 */
import { randomFillSync } from 'node:crypto';
import { STORED_INFO_OPEN } from '../cache/result-cache.ts';

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
 * later read: ~0.5 µs of a cache hit against ~0.2 here).
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
/** The id's member inside a stored `info` (STORED_INFO_OPEN) after its provenance members, or as its first. */
const ID_AFTER = Buffer.from(',"request_id":"', 'latin1');
const ID_FIRST = ID_AFTER.subarray(1);
const STORED_INFO = Buffer.from(STORED_INFO_OPEN, 'latin1');
const EMPTY = Buffer.alloc(0);

/**
 * A serialised JSON object with `"request_id":…` added to its `info`: a stored result's own last
 * member (ResultCache), else a new last member. The hit front writes the two parts
 * (requestIdParts) without joining them.
 */
export function withRequestId(body: Buffer, id: string): Buffer {
  const [head, tail] = requestIdParts(body, id);
  return tail.length === 0 ? head : Buffer.concat([head, tail], head.length + tail.length);
}

/**
 * The same bytes in two parts, to be written one after the other: a view of `body` up to the
 * brace the id goes before (no copy) and the id's member with the closing braces, filled in
 * place (its fixed text, then the id's characters: a UUID is ASCII and needs no escaping; no
 * string of the tail to encode). A stored result ends in its `info` (STORED_INFO_OPEN, holding
 * the provenance it was stored with): the id joins it there, after its members (the body is
 * then one ResultCache stored: its last `,"info":{` is that member). A body with no object is
 * returned whole, with an empty tail.
 */
export function requestIdParts(body: Buffer, id: string): [Buffer, Buffer] {
  let end = body.length - 1;
  while (end >= 0 && body[end] !== CLOSE) end--;
  if (end < 0) return [body, EMPTY];
  const info = body.lastIndexOf(STORED_INFO, end);
  const infoClose = info >= 0 ? before(body, end) : -1;
  if (infoClose >= 0 && body[infoClose] === CLOSE) {
    const open = info + STORED_INFO.length;
    return [body.subarray(0, infoClose), idTail(infoClose === open ? ID_FIRST : ID_AFTER, id)];
  }
  // `{}` (or `{ }`) has no member to follow: no comma.
  const i = before(body, end);
  return [body.subarray(0, end), idTail(i >= 0 && body[i] === 0x7b ? FIRST_MEMBER : MEMBER, id)];
}

/** The last character before `at` that is not JSON whitespace, or -1. */
function before(body: Buffer, at: number): number {
  let i = at - 1;
  while (i >= 0 && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i--;
  return i;
}

/** `member`, the id, its closing quote and two closing braces (`info`'s, the object's), in one new buffer. */
function idTail(member: Buffer, id: string): Buffer {
  const tail = Buffer.allocUnsafe(member.length + id.length + 3);
  tail.set(member);
  let o = member.length;
  for (let k = 0; k < id.length; k++) tail[o++] = id.charCodeAt(k);
  tail[o++] = 0x22; // '"'
  tail[o++] = CLOSE;
  tail[o] = CLOSE;
  return tail;
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
