/** Maps an Authorization header to a caller identity: anonymous, a user key, or an admin key. */
import { hash, timingSafeEqual } from 'node:crypto';
import { serviceError } from '../errors.ts';

export type KeyClass = 'anonymous' | 'user' | 'admin';

export interface Caller {
  /** Limiter bucket: 'anonymous' or a stable label of the key (never the key itself). */
  id: string;
  keyClass: KeyClass;
  concurrency: number;
}

export interface KeyRecord {
  key: string;
  name?: string | undefined;
  admin: boolean;
  concurrency?: number | undefined;
}

const digest = (s: string) => hash('sha256', s, 'buffer');

export class KeyRing {
  // Keyed by sha256 so lookups compare digests, not secrets, and logs never hold a key.
  readonly #byDigest = new Map<string, { rec: KeyRecord; label: string }>();

  constructor(
    keys: KeyRecord[],
    readonly defaults: { anonymous: number; user: number; admin: number },
  ) {
    for (const rec of keys) {
      const d = digest(rec.key);
      this.#byDigest.set(d.toString('hex'), { rec, label: rec.name ?? `key-${d.toString('hex').slice(0, 8)}` });
    }
  }

  get size(): number {
    return this.#byDigest.size;
  }

  /** Known headers → caller, so a keyed request costs one map lookup (bounded; cleared when full). */
  readonly #memo = new Map<string, Caller>();

  /** Throws 401 for a malformed header or unknown key; no header means anonymous. */
  identify(authorization: string | undefined): Caller {
    const memo = authorization === undefined ? undefined : this.#memo.get(authorization);
    if (memo) return memo;
    const caller = this.#identify(authorization);
    if (authorization !== undefined && caller.keyClass !== 'anonymous') {
      if (this.#memo.size >= 10_000) this.#memo.clear();
      this.#memo.set(authorization, caller);
    }
    return caller;
  }

  #identify(authorization: string | undefined): Caller {
    if (authorization === undefined || authorization.trim() === '') {
      return { id: 'anonymous', keyClass: 'anonymous', concurrency: this.defaults.anonymous };
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw serviceError('unauthorized', 'bad_header');
    const d = digest(m[1]!);
    const hit = this.#byDigest.get(d.toString('hex'));
    if (!hit || !timingSafeEqual(digest(hit.rec.key), d)) throw serviceError('unauthorized', 'unknown_key');
    const keyClass: KeyClass = hit.rec.admin ? 'admin' : 'user';
    return { id: hit.label, keyClass, concurrency: hit.rec.concurrency ?? this.defaults[keyClass] };
  }
}
