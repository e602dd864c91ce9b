/**
 * Tool results by content hash: sha256 over tool, environment, the validated request
 * (defaults applied, keys sorted, `timeout_seconds` left out since it does not change a
 * result) and content. Bounded in bytes (lru-cache); a hit costs no pool and no queue.
 *
 * A hit is stored ready to send (its JSON serialized once, `timings` those of a hit), and
 * byte-identical request bodies are remembered as aliases, so a repeated request is
 * answered without even validating it again.
 */
import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface CacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
}

export interface CachedResult {
  /** The response a hit returns (timings of a hit: total_ms 0). */
  response: object;
  /** The same, serialized once. */
  json: string;
}

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export class ResultCache {
  #lru: LRUCache<string, CachedResult> | undefined;
  /** sha256(tool, raw body) → canonical key. */
  #aliases: LRUCache<string, string> | undefined;
  #hits = 0;
  #misses = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    // maxBytes 0 disables caching.
    if (maxBytes > 0) {
      this.#lru = new LRUCache<string, CachedResult>({ maxSize: maxBytes, sizeCalculation: (v, k) => v.json.length * 2 + k.length });
      this.#aliases = new LRUCache<string, string>({ max: 100_000 });
    }
  }

  key(tool: string, environment: string, request: Record<string, unknown>): string {
    const { timeout_seconds: _t, ...rest } = request;
    return hash('sha256', `${tool}\u0000${environment}\u0000${canonicalJson(rest)}`);
  }

  #rawKey(tool: string, rawBody: string): string {
    return hash('sha256', `${tool}\u0000${rawBody}`);
  }

  get(key: string): CachedResult | undefined {
    const v = this.#lru?.get(key);
    if (v) this.#hits++;
    else this.#misses++;
    return v;
  }

  /** A byte-identical body seen before whose result is still cached. */
  getRaw(tool: string, rawBody: string): CachedResult | undefined {
    const key = this.#aliases?.get(this.#rawKey(tool, rawBody));
    const v = key === undefined ? undefined : this.#lru?.get(key);
    if (v) this.#hits++;
    return v;
  }

  /** Remember that this raw body of `tool` validates to `key` (only while `key` is cached). */
  alias(tool: string, rawBody: string, key: string): void {
    if (this.#lru?.has(key)) this.#aliases?.set(this.#rawKey(tool, rawBody), key);
  }

  set(key: string, response: object): void {
    if (!this.#lru) return;
    const hit = { ...response, timings: { total_ms: 0 } };
    const json = JSON.stringify(hit);
    if (json.length * 2 + key.length > this.maxBytes) return;
    this.#lru.set(key, { response: hit, json });
  }

  stats(): CacheStats {
    return { entries: this.#lru?.size ?? 0, bytes: this.#lru?.calculatedSize ?? 0, maxBytes: this.maxBytes, hits: this.#hits, misses: this.#misses };
  }
}
