/**
 * Shared links (AXLE's newer API, used by its MCP server's `share_url` / `read_share_url` tools):
 * every answered tool request is remembered briefly (`recent`), so its caller can save it with
 * `POST /v1/shared-links {request_id}`; a saved one is answered by `GET /v1/shared-links/{id}`
 * until it expires. Both stores are bounded in bytes and time (config `sharedLinks`); disabled,
 * nothing is stored at all. In memory only: links do not survive a restart (docs/shared-links.md).
 *
 * Recording is on the hot path, so it stores what the route already has (the raw body string,
 * the bytes or string sent) by reference: no parse, no serialisation until a link is read.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Caller } from '../admission/keys.ts';
import { issuesToDetails, describeDetails } from '../contract/validate.ts';
import { shareRequest, type SharedLink } from '../contract/shared-links.ts';
import { clip, serviceError } from '../errors.ts';
import { RecentRequests, type RecentRequest } from './recent-requests.ts';
import { withRequestId } from './request-id.ts';

export interface SharedLinksConfig {
  enabled: boolean;
  /** How long an answered request can still be shared. */
  recentSeconds: number;
  /** Bytes of recent requests kept (inputs + result, approximately); the oldest go first. */
  recentMaxBytes: number;
  /** How long a saved link answers. */
  ttlSeconds: number;
  /** Bytes of saved links kept; the least recently used go first. */
  maxBytes: number;
}

export const DEFAULT_SHARED_LINKS: SharedLinksConfig = {
  enabled: true,
  recentSeconds: 3600,
  recentMaxBytes: 32 * 1024 * 1024,
  ttlSeconds: 7 * 24 * 3600,
  maxBytes: 32 * 1024 * 1024,
};

/** One answered request, as the route had it. */
export interface RecordedRequest {
  tool: string;
  /** The caller's limiter id and key class: only the same caller may share it. */
  caller: Pick<Caller, 'id' | 'keyClass'>;
  /** The request body as received (JSON text), or the parsed object where no text exists (WebSocket). */
  inputs: string | object;
  /** The response body as sent (JSON bytes or text), or the object. */
  result: Buffer | string | object;
  /**
   * A cache hit's stored bytes, without its request id (spliced in when the link is read): the
   * Buffer is the cache's own, so remembering it holds no new memory and copies nothing.
   */
  withoutId?: boolean;
}

interface Saved extends RecentRequest {
  savedAt: number;
}

/** Per-entry bookkeeping beyond the payload (map slot, object, strings' headers). */
const ENTRY_OVERHEAD = 256;
/** At most this many recent requests, whatever their size. */
const RECENT_SLOTS = 65_536;

const sizeOf = (v: Buffer | string | object): number =>
  Buffer.isBuffer(v) ? v.byteLength : typeof v === 'string' ? v.length : JSON.stringify(v).length;

const iso = (ms: number) => new Date(ms).toISOString();

const asObject = (v: Buffer | string | object): Record<string, unknown> =>
  (Buffer.isBuffer(v) || typeof v === 'string' ? JSON.parse(v.toString()) : v) as Record<string, unknown>;

export class SharedLinks {
  readonly #recent: RecentRequests | undefined;
  readonly #saved: LRUCache<string, Saved> | undefined;
  readonly #ttlMs: number;

  constructor(
    readonly config: SharedLinksConfig,
    /** True when no keys are configured: anonymous callers may share their requests. */
    private readonly openMode: () => boolean,
  ) {
    this.#ttlMs = config.ttlSeconds * 1000;
    if (!config.enabled) return;
    // Slots: enough for the byte bound at small requests, preallocated once (~80 bytes a slot).
    this.#recent = new RecentRequests(
      Math.max(16, Math.min(RECENT_SLOTS, Math.floor(config.recentMaxBytes / ENTRY_OVERHEAD))),
      config.recentMaxBytes,
      config.recentSeconds * 1000,
    );
    this.#saved = new LRUCache<string, Saved>({
      maxSize: Math.max(1, config.maxBytes),
      ttl: this.#ttlMs,
      sizeCalculation: (e) => Math.max(1, e.size),
    });
  }

  get enabled(): boolean {
    return this.#recent !== undefined;
  }

  /** Remember an answered request (a no-op when disabled, or when it alone exceeds the bound). */
  record(requestId: string, r: RecordedRequest): void {
    const recent = this.#recent;
    if (!recent) return;
    // A hit's bytes are the cache's, but counted: once the cache drops them, this holds them alone.
    const size = sizeOf(r.inputs) + sizeOf(r.result) + ENTRY_OVERHEAD;
    recent.add(requestId, r.tool, r.caller.id, r.caller.keyClass, r.inputs, r.result, r.withoutId === true, size);
  }

  /** Save a recent request of this caller's as a link; 404 when there is none (or it is another caller's). */
  share(
    requestId: string,
    caller: Caller,
  ): { request_id: string; tool_name: string; saved_at: string; expires_at: string } {
    if (!this.#saved || !this.#recent) throw serviceError('not_found', 'shared_links_disabled');
    const done = this.#saved.get(requestId);
    const entry = done ?? this.#recent.get(requestId);
    // Another caller's request is answered as unknown: a request id reveals nothing about others.
    if (!entry || !this.#mayShare(entry, caller)) throw serviceError('not_found', 'share_request', { id: requestId });
    const saved: Saved = done ?? { ...entry, savedAt: Date.now() };
    if (!done) {
      if (saved.size > this.config.maxBytes) throw serviceError('not_found', 'share_request', { id: requestId });
      this.#saved.set(requestId, saved);
    }
    return {
      request_id: requestId,
      tool_name: saved.tool,
      saved_at: iso(saved.savedAt),
      expires_at: iso(saved.savedAt + this.#ttlMs),
    };
  }

  /** A saved link, parsed for the answer. */
  get(requestId: string): SharedLink {
    if (!this.#saved) throw serviceError('not_found', 'shared_links_disabled');
    const s = this.#saved.get(requestId);
    if (!s) throw serviceError('not_found', 'shared_link', { id: clip(requestId, 40) });
    return {
      request_id: requestId,
      tool_name: s.tool,
      inputs: asObject(s.inputs),
      result: asObject(s.withoutId && Buffer.isBuffer(s.result) ? withRequestId(s.result, requestId) : s.result),
      state: 'completed',
      created_at: iso(s.createdAt),
    };
  }

  stats(): { enabled: boolean; recent: number; saved: number; recentBytes: number; savedBytes: number } {
    return {
      enabled: this.enabled,
      recent: this.#recent?.size ?? 0,
      saved: this.#saved?.size ?? 0,
      recentBytes: this.#recent?.bytes ?? 0,
      savedBytes: this.#saved?.calculatedSize ?? 0,
    };
  }

  #mayShare(e: RecentRequest, caller: Caller): boolean {
    if (e.callerId !== caller.id) return false;
    // Anonymous callers are one caller; they may share only on a local daemon (open mode).
    return caller.keyClass !== 'anonymous' || this.openMode();
  }
}

/** The two routes. `authorize` is the tools' (401 for a bad key, 503 while shutting down). */
export function registerSharedLinkRoutes(
  app: FastifyInstance,
  links: SharedLinks,
  authorize: (request: FastifyRequest) => Caller,
): void {
  app.post('/v1/shared-links', async (request, reply) => {
    const caller = authorize(request);
    const parsed = shareRequest.safeParse(request.body);
    if (!parsed.success) {
      const details = issuesToDetails(parsed.error.issues, 'shared-links');
      throw serviceError(
        'invalid_request',
        'fields',
        { tool: 'shared-links', problems: describeDetails(details) },
        { details },
      );
    }
    return reply.code(201).send(links.share(parsed.data.request_id, caller));
  });
  app.get<{ Params: { id: string } }>('/v1/shared-links/:id', async (request) => {
    authorize(request);
    return links.get(request.params.id);
  });
}
