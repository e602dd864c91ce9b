/** Maps an Authorization header to a caller identity: anonymous, a user key, or an admin key. */
import { timingSafeEqual, createHash } from 'node:crypto';
import { ServiceError } from '../errors.ts';

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

const digest = (s: string) => createHash('sha256').update(s).digest();

export class KeyRing {
  // Keyed by sha256 so lookups compare digests, not secrets, and logs never hold a key.
  readonly #byDigest = new Map<string, { rec: KeyRecord; label: string }>();

  constructor(keys: KeyRecord[], readonly defaults: { anonymous: number; user: number; admin: number }) {
    for (const rec of keys) {
      const d = digest(rec.key);
      this.#byDigest.set(d.toString('hex'), { rec, label: rec.name ?? `key-${d.toString('hex').slice(0, 8)}` });
    }
  }

  get size(): number {
    return this.#byDigest.size;
  }

  /** Throws 401 for a malformed header or unknown key; no header means anonymous. */
  identify(authorization: string | undefined): Caller {
    if (authorization === undefined || authorization.trim() === '') {
      return { id: 'anonymous', keyClass: 'anonymous', concurrency: this.defaults.anonymous };
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw new ServiceError('unauthorized', 'the Authorization header must be "Bearer <API key>"');
    const d = digest(m[1]!);
    const hit = this.#byDigest.get(d.toString('hex'));
    if (!hit || !timingSafeEqual(digest(hit.rec.key), d)) throw new ServiceError('unauthorized', 'unknown API key');
    const keyClass: KeyClass = hit.rec.admin ? 'admin' : 'user';
    return { id: hit.label, keyClass, concurrency: hit.rec.concurrency ?? this.defaults[keyClass] };
  }
}
