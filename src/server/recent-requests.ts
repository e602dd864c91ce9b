/**
 * The answered requests of the last while, for `POST /v1/shared-links` (src/server/shared-links.ts).
 * Written on every tool response, read almost never: so writing allocates nothing of its own. A
 * ring of preallocated parallel arrays (no entry object per request, no LRU node, no timer, no
 * id → slot map: a Map's insert and delete per request were a visible share of a cache hit's CPU) and two
 * bounds: bytes (the oldest go first) and age (checked on read). A read scans a typed array of
 * the ids' short hashes (65,536 slots at most: tens of µs, only for `POST /v1/shared-links`).
 * What a slot holds are references the route already has: the raw body string, the bytes sent
 * (on a repeated cache hit, the known body's text and the cache's bytes: nothing of the request's
 * own). A request id in the canonical UUID form is kept as its 128 bits in a typed array, not as
 * its string: a string per request kept for the ring's window was copied out of the young
 * generation and held the collector's attention (measured: shared links on cost a hit measurably more
 * than off before this; a UUID's words cost nothing to keep). Any other id is kept as it is.
 */
import type { KeyClass } from '../admission/keys.ts';
import { UUID_HEX_AT } from './request-id.ts';

export interface RecentRequest {
  tool: string;
  callerId: string;
  keyClass: KeyClass;
  inputs: string | object;
  result: Buffer | string | object;
  /** `result` is a cache hit's stored bytes, without the request id. */
  withoutId: boolean;
  createdAt: number;
  size: number;
}

export class RecentRequests {
  readonly #hint: Int32Array;
  /** Four words a slot: the id's 128 bits when it is a UUID (its `#ids` entry then undefined). */
  readonly #idWords: Int32Array;
  readonly #ids: (string | undefined)[];
  readonly #tool: string[];
  readonly #caller: string[];
  readonly #class: KeyClass[];
  readonly #inputs: (string | object | undefined)[];
  readonly #result: (Buffer | string | object | undefined)[];
  readonly #withoutId: Uint8Array;
  readonly #at: Float64Array;
  readonly #size: Float64Array;
  /** The next slot to write, and how many slots before it are live (oldest = next - count). */
  #next = 0;
  #count = 0;
  #bytes = 0;

  constructor(
    readonly slots: number,
    readonly maxBytes: number,
    readonly ttlMs: number,
  ) {
    this.#hint = new Int32Array(slots);
    this.#idWords = new Int32Array(4 * slots);
    this.#ids = new Array<string | undefined>(slots);
    this.#tool = new Array<string>(slots);
    this.#caller = new Array<string>(slots);
    this.#class = new Array<KeyClass>(slots);
    this.#inputs = new Array<string | object | undefined>(slots);
    this.#result = new Array<Buffer | string | object | undefined>(slots);
    this.#withoutId = new Uint8Array(slots);
    this.#at = new Float64Array(slots);
    this.#size = new Float64Array(slots);
  }

  get size(): number {
    return this.#count;
  }

  get bytes(): number {
    return this.#bytes;
  }

  // Positional, not an object: no allocation per request on the hot path.
  add(
    id: string,
    tool: string,
    callerId: string,
    keyClass: KeyClass,
    inputs: string | object,
    result: Buffer | string | object,
    withoutId: boolean,
    size: number,
  ): void {
    if (size > this.maxBytes) return;
    while (this.#count > 0 && (this.#count === this.slots || this.#bytes + size > this.maxBytes)) this.#dropOldest();
    const i = this.#next;
    this.#ids[i] = uuidWords(id, this.#idWords, 4 * i) ? undefined : id;
    this.#hint[i] = hintOf(id);
    this.#tool[i] = tool;
    this.#caller[i] = callerId;
    this.#class[i] = keyClass;
    this.#inputs[i] = inputs;
    this.#result[i] = result;
    this.#withoutId[i] = withoutId ? 1 : 0;
    this.#at[i] = Date.now();
    this.#size[i] = size;
    this.#bytes += size;
    this.#next = (i + 1) % this.slots;
    this.#count++;
  }

  get(id: string, now = Date.now()): RecentRequest | undefined {
    const i = this.#find(id);
    if (i < 0 || now - this.#at[i]! > this.ttlMs) return undefined;
    return {
      tool: this.#tool[i]!,
      callerId: this.#caller[i]!,
      keyClass: this.#class[i]!,
      inputs: this.#inputs[i]!,
      result: this.#result[i]!,
      withoutId: this.#withoutId[i] === 1,
      createdAt: this.#at[i]!,
      size: this.#size[i]!,
    };
  }

  /** The live slot holding `id` (newest first), or -1. */
  #find(id: string): number {
    const h = hintOf(id);
    const asked = new Int32Array(4);
    const uuid = uuidWords(id, asked, 0);
    const w = this.#idWords;
    for (let k = 1; k <= this.#count; k++) {
      const i = (this.#next - k + this.slots) % this.slots;
      if (this.#hint[i] !== h) continue;
      const kept = this.#ids[i];
      if (
        kept !== undefined
          ? kept === id
          : uuid &&
            w[4 * i] === asked[0] &&
            w[4 * i + 1] === asked[1] &&
            w[4 * i + 2] === asked[2] &&
            w[4 * i + 3] === asked[3]
      )
        return i;
    }
    return -1;
  }

  #dropOldest(): void {
    const i = (this.#next - this.#count + this.slots) % this.slots;
    this.#ids[i] = undefined;
    this.#inputs[i] = undefined;
    this.#result[i] = undefined;
    this.#bytes -= this.#size[i]!;
    this.#count--;
  }
}

/**
 * Writes a canonical (lowercase) UUID's 128 bits to `out` at `at` and returns true; false for
 * any other string. One string has one form: equal words are equal ids.
 */
function uuidWords(id: string, out: Int32Array, at: number): boolean {
  if (id.length !== 36) return false;
  if (
    id.charCodeAt(8) !== 0x2d ||
    id.charCodeAt(13) !== 0x2d ||
    id.charCodeAt(18) !== 0x2d ||
    id.charCodeAt(23) !== 0x2d
  )
    return false;
  for (let word = 0; word < 4; word++) {
    let v = 0;
    for (let d = 0; d < 8; d++) {
      const c = id.charCodeAt(UUID_HEX_AT[8 * word + d]!);
      const n = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
      if (n < 0) return false;
      v = (v << 4) | n;
    }
    out[at + word] = v;
  }
  return true;
}

/** A short hash of an id's first characters (a request id is a random UUID): the scan's filter. */
function hintOf(id: string): number {
  let h = id.length;
  for (let k = 0; k < 8 && k < id.length; k++) h = (Math.imul(h, 31) + id.charCodeAt(k)) | 0;
  return h;
}
