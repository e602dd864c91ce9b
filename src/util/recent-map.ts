/**
 * A map of at most `max` entries that drops the least recently used one first, for a hot path that
 * needs only `has`, `get` and `set` (a session's remembered command outcomes, asked on every
 * request). A `Map`'s insertion order is the recency: `get` moves the entry it finds to the end,
 * `set` puts its entry there, and past `max` the first entry goes. lru-cache answers the same
 * (`test/util/recent-map.test.ts` runs both over the same operations) but reads each call's
 * options first (an options object and its defaults per call, a tracing channel checked), which
 * showed in the daemon's perf profile of a miss and in a loop of `has` and `set` of new keys.
 */
export class RecentMap<K, V> {
  readonly #map = new Map<K, V>();

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError(`RecentMap: max must be at least 1 (got ${max})`);
  }

  get size(): number {
    return this.#map.size;
  }

  /** Whether `key` is held; its recency is left as it is (as lru-cache's `has`). */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** The value under `key`, now the most recently used. */
  get(key: K): V | undefined {
    const map = this.#map;
    const v = map.get(key);
    if (v !== undefined) {
      map.delete(key);
      map.set(key, v);
    }
    return v;
  }

  /** `value` under `key`, the most recently used; past `max` the least recently used entry goes. */
  set(key: K, value: V): this {
    const map = this.#map;
    map.delete(key);
    map.set(key, value);
    if (map.size > this.max) map.delete(map.keys().next().value as K);
    return this;
  }
}
