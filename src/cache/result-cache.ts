/**
 * Tool results by content hash: sha256 over tool, environment, the validated request
 * (defaults applied, keys sorted, `timeout_seconds` left out since it does not change a
 * result) and content. Bounded in bytes (lru-cache); a hit costs no pool and no queue.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface CacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
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
  #lru: LRUCache<string, object> | undefined;
  #hits = 0;
  #misses = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    // maxBytes 0 disables caching.
    this.#lru = maxBytes > 0 ? new LRUCache<string, object>({ maxSize: maxBytes, sizeCalculation: (_v, k) => k.length }) : undefined;
  }

  key(tool: string, environment: string, request: Record<string, unknown>): string {
    const { timeout_seconds: _t, ...rest } = request;
    return createHash('sha256').update(`${tool}\u0000${environment}\u0000${canonicalJson(rest)}`).digest('hex');
  }

  get(key: string): object | undefined {
    const v = this.#lru?.get(key);
    if (v) this.#hits++;
    else this.#misses++;
    return v;
  }

  set(key: string, value: object): void {
    if (!this.#lru) return;
    // Size: the serialized response (what a hit saves recomputing and what it holds in memory).
    const size = JSON.stringify(value).length * 2 + key.length;
    if (size > this.maxBytes) return;
    this.#lru.set(key, value, { size });
  }

  stats(): CacheStats {
    return { entries: this.#lru?.size ?? 0, bytes: this.#lru?.calculatedSize ?? 0, maxBytes: this.maxBytes, hits: this.#hits, misses: this.#misses };
  }
}
