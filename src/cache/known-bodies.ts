/**
 * Request bodies recently answered as cache hits, kept by their bytes, so that a repeat is known
 * without making its raw key again. The raw-body key of a body above 1 KiB is its SHA-256
 * (`ResultCache.rawKey`): with its base64url text and key string, a
 * notable share of a hit; a smaller body's is its bytes as text, a copy. Here
 * a fingerprint of a few sampled words picks the one candidate and `Buffer.equals` (a memcmp,
 * far cheaper than the hash) confirms it byte for byte: a fingerprint collision costs the hash, never a wrong answer.
 *
 * An entry also holds the body's text, decoded once, for the shared-links record of each hit
 * (src/server/recent-requests.ts keeps it for its window): one string for every repeat, where a
 * string per request survived into the old generation and made work for every collection.
 *
 * It answers only "which raw key": the result still comes from the result cache, so eviction and
 * the cache's own bound are unchanged. Bounded on its own (KNOWN_BODIES_LIMITS): bodies up to
 * 64 KiB, 1,024 entries, 8 MiB of bodies and texts; the oldest entry goes first. An entry is made
 * only for a confirmed hit of an authorized caller (src/server/hit-front.ts).
 *
 * Fast path (config fastPaths.knownBodies; off: the front makes every body's raw key).
 * Retire when: `node --import tsx bench/fast-paths.ts hits` measures CPU per hit with it off
 * within 2% of it on (a cheaper raw key), or the hit front is retired; or re-check by 2027-05-31.
 */
import type { RawKey } from './result-cache.ts';

/** The bounds: bodies larger than `body` are hashed every time (the hash is then a small share of their cost). */
export interface KnownBodiesLimits {
  entries: number;
  bytes: number;
  body: number;
}

export const KNOWN_BODIES_LIMITS: KnownBodiesLimits = { entries: 1024, bytes: 8 * 1024 * 1024, body: 64 * 1024 };
/** Words sampled by the fingerprint (the equality check makes it exact). */
const SAMPLES = 16;

export interface KnownBody {
  readonly tool: string;
  readonly bytes: Buffer;
  readonly rawKey: RawKey;
  /** The body as UTF-8 text (what shared links record as its inputs). */
  readonly text: string;
}

/** A hash of the length and SAMPLES 32-bit words spread over the body (constant time). */
export function fingerprint(b: Buffer): number {
  const n = b.length;
  let h = Math.imul(n, 0x9e3779b1);
  if (n < 4) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ b[i]!, 0x85ebca6b);
    return h;
  }
  const step = Math.max(4, Math.floor(n / SAMPLES) & ~3);
  for (let i = 0; i + 4 <= n; i += step) h = Math.imul(h ^ b.readInt32LE(i), 0x85ebca6b);
  h = Math.imul(h ^ b.readInt32LE(n - 4), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class KnownBodies {
  readonly #byPrint = new Map<number, KnownBody>();
  #bytes = 0;

  constructor(readonly limits: KnownBodiesLimits = KNOWN_BODIES_LIMITS) {}

  /** The entry holding exactly these bytes for this tool, if any. */
  find(tool: string, bytes: Buffer): KnownBody | undefined {
    if (bytes.length > this.limits.body) return undefined;
    const e = this.#byPrint.get(fingerprint(bytes));
    return e !== undefined && e.tool === tool && e.bytes.equals(bytes) ? e : undefined;
  }

  /**
   * Remembers a body whose raw key was just computed and hit. Returns the entry, or a transient
   * one when the body is too large to keep.
   */
  remember(tool: string, bytes: Buffer, rawKey: RawKey): KnownBody {
    const text = bytes.toString('utf8');
    const size = sizeOf({ bytes, text });
    if (bytes.length > this.limits.body || size > this.limits.bytes) return { tool, bytes, rawKey, text };
    // Its own copy with its own backing store: a request's chunk is a view of a larger read
    // buffer, and a small Buffer.from a slice of Node's shared 8 KiB pool, kept alive whole.
    const own = Buffer.allocUnsafeSlow(bytes.length);
    bytes.copy(own);
    const e: KnownBody = { tool, bytes: own, rawKey, text };
    const print = fingerprint(bytes);
    this.#drop(print);
    while (this.#byPrint.size >= this.limits.entries || this.#bytes + size > this.limits.bytes)
      this.#drop(this.#byPrint.keys().next().value!);
    this.#byPrint.set(print, e);
    this.#bytes += size;
    return e;
  }

  get size(): number {
    return this.#byPrint.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  #drop(print: number): void {
    const e = this.#byPrint.get(print);
    if (!e) return;
    this.#byPrint.delete(print);
    this.#bytes -= sizeOf(e);
  }
}

/** The bytes and the text (one byte a character for ASCII, two otherwise: counted as two). */
const sizeOf = (e: Pick<KnownBody, 'bytes' | 'text'>): number => e.bytes.length + 2 * e.text.length;
