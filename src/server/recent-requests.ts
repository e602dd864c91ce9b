/**
 * The answered requests of the last while, for `POST /v1/shared-links` (src/server/shared-links.ts).
 * Written on every tool response, read almost never: so writing allocates nothing of its own. A
 * ring of preallocated parallel arrays (no entry object per request, no LRU node, no timer, no
 * id → slot map: a Map's insert and delete per request were ~3% of a cache hit's CPU) and two
 * bounds: bytes (the oldest go first) and age (checked on read). A read scans a typed array of
 * the ids' short hashes (65,536 slots at most: tens of µs, only for `POST /v1/shared-links`).
 * What a slot holds are references the route already has: the raw body string, the bytes sent.
 */
import type { KeyClass } from '../admission/keys.ts';

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
    this.#ids[i] = id;
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
    for (let k = 1; k <= this.#count; k++) {
      const i = (this.#next - k + this.slots) % this.slots;
      if (this.#hint[i] === h && this.#ids[i] === id) return i;
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

/** A short hash of an id's first characters (a request id is a random UUID): the scan's filter. */
function hintOf(id: string): number {
  let h = id.length;
  for (let k = 0; k < 8 && k < id.length; k++) h = (Math.imul(h, 31) + id.charCodeAt(k)) | 0;
  return h;
}
