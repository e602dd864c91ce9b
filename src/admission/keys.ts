/**
 * Maps an Authorization header to a caller identity: anonymous, a user key, or an admin key.
 *
 * Open mode (no keys configured: a local daemon) departs from the spec on purpose: any
 * `Bearer` value is served as a user key, each distinct value its own caller with the key
 * concurrency, so AXLE users who have `AXLE_API_KEY` exported work unchanged at their client's
 * default fan-out. A request with no key keeps the spec's anonymous limit. See docs/auth.md.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { serviceError } from '../errors.ts';

export type KeyClass = 'anonymous' | 'user' | 'admin';

export interface Caller {
  /** Limiter bucket: 'anonymous' or a stable label of the key (never the key itself). */
  id: string;
  keyClass: KeyClass;
  concurrency: number;
}

/** How many distinct open-mode bearers get a caller of their own; later ones share one (docs/auth.md). */
export const DEFAULT_OPEN_BEARERS = 256;

/** The caller id the open-mode bearers past the bound share. */
export const OPEN_OVERFLOW_ID = 'bearer-overflow';

/**
 * The id a caller's share is counted under (admission buckets, worker-thread fairness, MCP
 * sessions): its key's label, or for anonymous callers their address, so one anonymous client
 * cannot use up what every other anonymous client shares.
 */
export function callerShare(caller: Caller, address: string | undefined): string {
  return caller.keyClass === 'anonymous' ? `anonymous@${address ?? ''}` : caller.id;
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

  /** Open mode: bearer digest → its caller; bounded (an attacker cycling bearers grows nothing past it). */
  readonly #open = new Map<string, Caller>();
  readonly #openBearers: number;

  constructor(
    keys: KeyRecord[],
    readonly defaults: { anonymous: number; user: number; admin: number },
    opts: { openBearers?: number } = {},
  ) {
    this.#openBearers = opts.openBearers ?? DEFAULT_OPEN_BEARERS;
    for (const rec of keys) {
      const d = digest(rec.key);
      this.#byDigest.set(d.toString('hex'), { rec, label: rec.name ?? `key-${d.toString('hex').slice(0, 8)}` });
    }
  }

  get size(): number {
    return this.#byDigest.size;
  }

  /** No keys configured: any bearer is served as a key (a documented departure for local use). */
  get open(): boolean {
    return this.#byDigest.size === 0;
  }

  /** The startup log line saying how callers are identified. */
  describe(): string {
    return this.open
      ? 'open mode: no API keys configured, so any "Authorization: Bearer" value is served as a key ' +
          `(concurrency ${this.defaults.user} per distinct bearer, ${this.#openBearers} distinct bearers at most); ` +
          `requests without one share ${this.defaults.anonymous} active anonymous request(s). ` +
          'For local use: configure keys (LEAN_TOOL_API_KEYS) before exposing the daemon (docs/auth.md)'
      : `${this.#byDigest.size} API key(s) configured: an unknown key gets 401; ` +
          '/v1/status, /v1/environments, /v1/endpoints and /health need none';
  }

  /**
   * For the public listings (/v1/status, /v1/environments, /v1/endpoints, /health): a key that
   * would be refused elsewhere is read as anonymous here, so a client with a stale key can still look.
   */
  identifyLenient(authorization: string | undefined): Caller {
    try {
      return this.identify(authorization);
    } catch {
      return this.#anonymous();
    }
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
    if (authorization === undefined || authorization.trim() === '') return this.#anonymous();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw serviceError('unauthorized', 'bad_header');
    const d = digest(m[1]!);
    if (this.open) return this.#openCaller(d.toString('hex'));
    const hit = this.#byDigest.get(d.toString('hex'));
    if (!hit || !timingSafeEqual(digest(hit.rec.key), d)) throw serviceError('unauthorized', 'unknown_key');
    const keyClass: KeyClass = hit.rec.admin ? 'admin' : 'user';
    return { id: hit.label, keyClass, concurrency: hit.rec.concurrency ?? this.defaults[keyClass] };
  }

  #anonymous(): Caller {
    return { id: 'anonymous', keyClass: 'anonymous', concurrency: this.defaults.anonymous };
  }

  /** A bearer's own caller (labelled by a digest prefix, never the value), or the shared one past the bound. */
  #openCaller(hex: string): Caller {
    let c = this.#open.get(hex);
    if (c) return c;
    if (this.#open.size >= this.#openBearers)
      return { id: OPEN_OVERFLOW_ID, keyClass: 'user', concurrency: this.defaults.user };
    c = { id: `bearer-${hex.slice(0, 12)}`, keyClass: 'user', concurrency: this.defaults.user };
    this.#open.set(hex, c);
    return c;
  }
}
