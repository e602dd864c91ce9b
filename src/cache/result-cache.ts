/**
 * Tool results by content hash: sha256 over tool, environment, the validated request
 * (defaults applied, object keys sorted, `timeout_seconds` left out since it does not change
 * a result) and content. A hit costs no pool and no queue.
 *
 * Memory matches the bound: each entry is stored once, as the serialized response of a hit
 * in an exactly sized Buffer (not a slice of Node's shared 8 KiB pool, which a small cached
 * slice would keep alive whole), and counted as its bytes plus a fixed per-entry overhead.
 * Byte-identical request bodies are remembered as aliases (raw-body hash → key) in the same
 * LRU and counted the same way, so the hot path answers a repeat without parsing or
 * validating it again, and the alias table cannot grow outside the bound.
 */
import { isAscii } from 'node:buffer';
import { createHash, hash, type Hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { flatString } from '../util/flat-string.ts';

export interface CacheStats {
  entries: number;
  aliases: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
}

/** A request body's identity for the hot path (opaque: made by `rawKey`). */
export type RawKey = string & { readonly __rawKey: unique symbol };

export interface CachedResult {
  /** The response of a hit (timings of a hit: HIT_TIMINGS), serialized once, sent as is. */
  body: Buffer;
}

/**
 * What an entry costs beyond its bytes: the Buffer object and its backing-store record,
 * the key string, the LRU's map entry and list slots. The cache-memory bench scenario
 * checks the sum against the process's resident memory.
 */
export const ENTRY_OVERHEAD_BYTES = 320;

/** An alias is a key to a key: two strings and the same LRU bookkeeping, the raw key counted apart. */
const ALIAS_BYTES = 256;
/** Bodies up to this many bytes are their own raw key (`rawKey`); longer ones are hashed. */
export const INLINE_RAW_KEY_BYTES = 1024;
/** Canonical forms up to this many characters are their own local key (`localKey`); longer ones are hashed. */
export const INLINE_KEY_CHARS = 1024;
// eslint-disable-next-line no-control-regex -- ASCII is U+0000 to U+007F
const ASCII = /^[\u0000-\u007f]*$/;

/** A hit's timings: nothing was computed for it. */
const HIT_TIMINGS = Object.freeze({ total_ms: 0 });
/**
 * A stored result's last member: `info` with the provenance members the result was stored with
 * (src/envs/provenance.ts: the executor's commit, the environment's toolchain…), so a hit answers
 * the miss's fields from the bytes alone, and last in it a `request_id` holding STORED_ID, which
 * each answer overwrites with its own id at a fixed distance from the end (src/server/request-id.ts
 * requestIdParts: no search, no parse).
 */
export const STORED_ID = '00000000-0000-4000-8000-000000000000';
/** What a stored body ends with after its request id's value. */
export const STORED_ID_END = '"}}';
export const storedInfo = (members: string): string =>
  `"info":{${members}${members ? ',' : ''}"request_id":"${STORED_ID}${STORED_ID_END}`;
/**
 * How a stored result's JSON ends when `timings` was its last member, as the tools write their
 * results (one that does not ends otherwise: src/server/response-text.ts then serialises it again).
 */
export function storedTail(members: string): string {
  // Asked for on every miss (store and response) with the environment's one members text: the last one kept.
  if (members !== lastTail.members)
    lastTail = { members, tail: `,"timings":${HIT_TIMINGS_JSON},${storedInfo(members)}` };
  return lastTail.tail;
}
const HIT_TIMINGS_JSON = JSON.stringify(HIT_TIMINGS);
let lastTail = { members: '', tail: `,"timings":${HIT_TIMINGS_JSON},${storedInfo('')}` };
/** How a flat `timings` member ending an object's JSON text begins (its value then holds no brace: numbers only). */
const TIMINGS_OPEN = ',"timings":{';

/**
 * Where a flat `timings` member ending the JSON text of an object begins (the text ends
 * `,"timings":{…}}` with no brace inside the value), or -1. Read back from the end to the value's
 * opening brace: `lastIndexOf` over the whole text was a runtime call on every miss (the daemon's perf profile).
 */
export function timingsTailAt(json: string): number {
  let i = json.length - 3;
  if (i < 0 || json.charCodeAt(i + 2) !== 125 || json.charCodeAt(i + 1) !== 125) return -1;
  for (; i >= 0; i--) {
    const c = json.charCodeAt(i);
    if (c === 123) break;
    if (c === 125) return -1;
  }
  const at = i + 1 - TIMINGS_OPEN.length;
  return at >= 0 && json.startsWith(TIMINGS_OPEN, at) ? at : -1;
}

/**
 * A key's characters are counted at two bytes each: a local key (the canonical form, `localKey`)
 * holding any character past Latin-1 (`ℕ`, `→`: most Lean) is a two-byte string in V8. A raw key
 * is Latin-1 or a digest, one byte a character (the alias counts it so).
 */
const KEY_BYTES_PER_CHAR = 2;

/** What an entry of `valueBytes` under `key` is counted as: its bytes, the fixed overhead, its key. */
const entryBytes = (valueBytes: number, key: string): number =>
  valueBytes + ENTRY_OVERHEAD_BYTES + KEY_BYTES_PER_CHAR * key.length;

/** Alias values are keys (strings); results are Buffers. One LRU holds both so one bound covers both. */
type Slot = Buffer | string;

/** Strings from this length on are hashed where they are rather than copied into the canonical text. */
const HASH_IN_PLACE_CHARS = 4096;

/** Objects up to this many keys are sorted by insertion (quadratic, so only for small ones). */
const SMALL_OBJECT_KEYS = 16;

/**
 * An object's keys in code-unit order, as `sort()` orders them. A request is a few keys: sorted
 * in place by insertion, since `Array.prototype.sort` copies into a work array of its own first
 * (~0.9 KB allocated per cache key, sampled); a large object (a rename map) takes `sort()`.
 */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v);
  if (keys.length > SMALL_OBJECT_KEYS) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > k; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = k;
  }
  return keys;
}

/** The canonical form of a request to `tool` in `environment` (`timeout_seconds` left out: it does not change a result). */
function canonicalForm(tool: string, environment: string, request: Record<string, unknown>): CanonicalForm {
  const form = new CanonicalForm(`${tool}\u0000${environment}\u0000`);
  form.value(request, 'timeout_seconds');
  return form;
}

/**
 * A number's, boolean's or null's JSON text (`JSON.stringify(v) ?? 'null'`) without a call into
 * the JSON serializer (a runtime call per value of a request's key).
 */
export function primitiveJson(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  return v === null ? 'null' : (JSON.stringify(v) ?? 'null');
}

/**
 * A validated request in canonical form, for its hash: object keys sorted, strings
 * length-prefixed and taken as they are (no escaping pass over a large content). The form is
 * gathered in one string and hashed once (`hash`, one call into C++): a streaming hash with an
 * `update` per piece cost some 20 calls per request, more than the one-shot's work (measured in one
 * process, on the bench's `check` body). A long string goes to a streaming hash
 * as it is, after the text gathered before it, so a large content is not copied; the bytes
 * hashed are the same either way. Recursion depth is the request schema's (validated input),
 * not the caller's choice.
 */
class CanonicalForm {
  text: string;
  hash: Hash | undefined = undefined;

  constructor(prefix: string) {
    this.text = prefix;
  }

  string(v: string): void {
    this.text += `s${v.length}:`;
    if (v.length < HASH_IN_PLACE_CHARS) {
      this.text += v;
      return;
    }
    const h = (this.hash ??= createHash('sha256'));
    h.update(this.text);
    h.update(v);
    this.text = '';
  }

  value(v: unknown, skipKey?: string): void {
    if (typeof v === 'string') this.string(v);
    else if (Array.isArray(v)) {
      this.text += `a${v.length}[`;
      for (const x of v) this.value(x);
      this.text += ']';
    } else if (v !== null && typeof v === 'object') {
      const keys = sortedKeys(v);
      this.text += '{';
      for (const k of keys) {
        if (k === skipKey) continue;
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        this.string(k);
        this.value(x);
      }
      this.text += '}';
    } else {
      // numbers, booleans, null: JSON's spelling is canonical.
      this.text += `p${primitiveJson(v)};`;
    }
  }

  digest(): string {
    if (!this.hash) return hash('sha256', this.text, 'base64url');
    this.hash.update(this.text);
    return this.hash.digest('base64url');
  }
}

/**
 * ResultCache.localKey as a function of the request alone: a worker thread that validated a
 * large body computes it there (src/workers/structural-task.ts), the same key as this thread's.
 */
export function localCacheKey(tool: string, environment: string, request: Record<string, unknown>): string {
  const form = canonicalForm(tool, environment, request);
  // Kept as a key for as long as its entry: flat, not the rope of pieces it was built from.
  return form.hash === undefined && form.text.length <= INLINE_KEY_CHARS ? flatString(`c:${form.text}`) : form.digest();
}

/** A Buffer of exactly the string's UTF-8 bytes (`bytes`, their count), with its own backing store. */
function ownBuffer(s: string, bytes: number): Buffer {
  const b = Buffer.allocUnsafeSlow(bytes);
  b.write(s);
  return b;
}

/**
 * The text of an ASCII body from the raw key just made of its `bytes` (ResultCache.rawKey): the
 * key's own characters after its prefix (a view of the key, not a second decoding of the body
 * kept beside it), or undefined when the key is a digest or the bytes are not ASCII (their
 * Latin-1 text is then not their UTF-8 text).
 */
export function inlineBodyText(raw: RawKey, tool: string, bytes: Buffer): string | undefined {
  return raw.startsWith('b:') && isAscii(bytes) ? raw.slice(tool.length + 3) : undefined;
}

export class ResultCache {
  #lru: LRUCache<string, Slot> | undefined;
  #entries = 0;
  #hits = 0;
  #misses = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    // maxBytes 0 disables caching.
    if (maxBytes > 0) {
      this.#lru = new LRUCache<string, Slot>({
        maxSize: maxBytes,
        sizeCalculation: (v, k) => (typeof v === 'string' ? ALIAS_BYTES + k.length : entryBytes(v.byteLength, k)),
        dispose: (v) => {
          if (typeof v !== 'string') this.#entries--;
        },
      });
    }
  }

  /** A request's key: the SHA-256 of its canonical form (shared with other nodes by the cluster). */
  key(tool: string, environment: string, request: Record<string, unknown>): string {
    return canonicalForm(tool, environment, request).digest();
  }

  /**
   * A request's key in this process's cache alone: its canonical form itself when that is short
   * (up to INLINE_KEY_CHARS, kept whole: the `Map` compares it whole), else its digest (`key`).
   * The digest of a small request was visible in the daemon's perf profile of a miss (OpenSSL's
   * digest path run cold, as for the raw key). A key other nodes see (the cluster's shared cache
   * and claims) is always the digest (src/server/pipeline.ts).
   */
  localKey(tool: string, environment: string, request: Record<string, unknown>): string {
    return localCacheKey(tool, environment, request);
  }

  /**
   * The hot path's key: the body's bytes as received (only byte-identical repeats match).
   * Computed once per request and carried to `alias`. The bytes themselves (the hit front,
   * src/server/hit-front.ts) or their UTF-8 text: the same key for valid UTF-8. A body of up to
   * INLINE_RAW_KEY_BYTES is its own key (its bytes as Latin-1 text, exact: the `Map` compares
   * them whole); a longer one is its SHA-256. The hash of a small body was visible in the
   * daemon's perf profile of a miss (OpenSSL's digest path run cold between other processes, far
   * slower than in a loop), the key string's `Map` hash much less. The tool stays outside the hash (a tool name
   * is `[a-z0-9_]`): hashing `tool + body` made a copy of the body first.
   */
  rawKey(tool: string, rawBody: string | Buffer): RawKey {
    if (rawBody.length <= INLINE_RAW_KEY_BYTES) {
      // ASCII text is its own UTF-8 bytes; other text is encoded first. Flat: the key is hashed
      // and compared on each lookup and kept as an alias (src/util/flat-string.ts).
      if (typeof rawBody !== 'string') return flatString(`b:${tool}:${rawBody.toString('latin1')}`) as RawKey;
      if (ASCII.test(rawBody)) return flatString(`b:${tool}:${rawBody}`) as RawKey;
      return this.rawKey(tool, Buffer.from(rawBody));
    }
    return `r:${tool}:${hash('sha256', rawBody, 'base64url')}` as RawKey;
  }

  #result(key: string): CachedResult | undefined {
    const v = this.#lru?.get(key);
    return v === undefined || typeof v === 'string' ? undefined : { body: v };
  }

  get(key: string): CachedResult | undefined {
    const v = this.#result(key);
    if (v) this.#hits++;
    else this.#misses++;
    return v;
  }

  /** A byte-identical body seen before whose result is still cached. */
  getRaw(raw: RawKey): CachedResult | undefined {
    if (!this.#lru) return undefined;
    const key = this.#lru.get(raw);
    const v = typeof key === 'string' ? this.#result(key) : undefined;
    if (v) this.#hits++;
    return v;
  }

  /** Remember that this raw body validates to `key` (only while `key` is cached). */
  alias(raw: RawKey, key: string): void {
    if (this.#lru?.has(key)) this.#lru.set(raw, key);
  }

  /**
   * Stores a result; with `raw`, the body's raw key becomes its alias too (as `alias` does,
   * without looking it up again); `members` (JSON members, no braces) become its stored `info`. Returns the JSON text stored (a hit's response before its
   * request id), which the HTTP route builds its own response from (src/server/response-text.ts)
   * instead of serialising the result a second time.
   */
  set(key: string, response: object, raw?: RawKey, members = ''): string | undefined {
    if (!this.#lru) return undefined;
    // As the tools write a result (no `info`, a flat `timings` last, a plain object): its own text with a
    // hit's timings put in place of its own, the same bytes as the copy below without the copy (whose
    // added members took V8's slow define path on every miss).
    if (!('info' in response) && !('toJSON' in response)) {
      const own = JSON.stringify(response);
      const at = timingsTailAt(own);
      if (at >= 0) return this.#store(key, own.slice(0, at) + storedTail(members), raw);
    }
    // A result's own `info` (tools write none) is left out: the stored one is last (storedInfo).
    const json = JSON.stringify({ ...response, timings: HIT_TIMINGS, info: undefined });
    return this.#store(key, `${json.slice(0, -1)},${storedInfo(members)}`, raw);
  }

  #store(key: string, json: string, raw: RawKey | undefined): string | undefined {
    if (!this.#lru) return undefined;
    const bytes = Buffer.byteLength(json);
    // Too large for the whole cache: not stored (lru-cache would refuse it anyway).
    if (entryBytes(bytes, key) > this.maxBytes) return undefined;
    // Counted here, uncounted in dispose (which also runs for a value this set replaces).
    this.#entries++;
    this.#lru.set(key, ownBuffer(json, bytes));
    if (raw !== undefined) this.#lru.set(raw, key);
    return json;
  }

  /**
   * `set` for a result that came as its JSON text (a worker's answer to a large body): stored
   * with a hit's timings put in place of its own when `timings` ends it, as tools write their
   * results (a flat object of numbers); else parsed and stored as `set` would.
   */
  setSerialized(key: string, json: string, raw?: RawKey, members = ''): string | undefined {
    if (!this.#lru) return undefined;
    const at = timingsTailAt(json);
    if (at < 0) return this.set(key, JSON.parse(json) as object, raw, members);
    return this.#store(key, json.slice(0, at) + storedTail(members), raw);
  }

  stats(): CacheStats {
    const size = this.#lru?.size ?? 0;
    return {
      entries: this.#entries,
      aliases: size - this.#entries,
      bytes: this.#lru?.calculatedSize ?? 0,
      maxBytes: this.maxBytes,
      hits: this.#hits,
      misses: this.#misses,
    };
  }
}
