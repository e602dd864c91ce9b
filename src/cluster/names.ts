/**
 * Every NATS name the cluster uses, in one place: the work stream and its subjects, the
 * consumers, the key-value buckets and the core subjects for results, progress, cancel
 * and heartbeats. Subject tokens cannot hold dots, so environment names are escaped.
 */
import { hash } from 'node:crypto';
import { canonicalHeader } from '../backend/index.ts';
import { parseSource } from '../syntax/source.ts';

/**
 * The canonical form of an import header: the backend's (src/backend/session/keys.ts), which
 * also keys the session pools by (environment, canonical header), so the cluster routes by
 * exactly the key a worker's pool is warm for.
 */
export { canonicalHeader };

/**
 * The header a request elaborates first, as src/tools/elaborate.ts `prepareContent` picks
 * it: the environment's imports unless `ignore_imports` is false, then the content's own.
 */
export function requestHeader(request: { content?: unknown; ignore_imports?: unknown }, envImports: string): string {
  if (request.ignore_imports !== false || typeof request.content !== 'string') return envImports;
  const text = request.content;
  return text.slice(0, parseSource(text).header.end);
}

/** A subject token for a name: anything outside [A-Za-z0-9_-] becomes _. */
export const token = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_') || '_';

/** The routing key of a job: environment and canonical header, hashed (16 hex digits). */
export interface WorkKey {
  env: string;
  hash: string;
}

export function workKey(env: string, header: string): WorkKey {
  return { env, hash: hash('sha256', `${env}\u0000${canonicalHeader(header)}`).slice(0, 16) };
}

export const keyId = (k: WorkKey) => `${token(k.env)}.${k.hash}`;

export class Names {
  constructor(readonly prefix: string) {}
  get stream() {
    return `${this.prefix.toUpperCase()}_WORK`;
  }
  get workAll() {
    return `${this.prefix}.work.>`;
  }
  /** Jobs whose key no live worker holds warm; any idle worker takes them (and warms the key). */
  get fallbackSubject() {
    return `${this.prefix}.work.fallback`;
  }
  get fallbackConsumer() {
    return 'fallback';
  }
  workSubject(k: WorkKey) {
    return `${this.prefix}.work.${keyId(k)}`;
  }
  keyConsumer(k: WorkKey) {
    return `k_${token(k.env)}_${k.hash}`;
  }
  /** The shared result cache (values: tool responses, TTL). */
  get cacheBucket() {
    return `${this.prefix}_results`;
  }
  /** In-flight claims: cache key → job id, so a request is computed once cluster-wide. */
  get inflightBucket() {
    return `${this.prefix}_inflight`;
  }
  /** Outcomes of one cache key (every front waiting for it listens). */
  outcome(cacheKey: string) {
    return `${this.prefix}.outcome.${cacheKey}`;
  }
  progress(jobId: string) {
    return `${this.prefix}.progress.${jobId}`;
  }
  cancel(jobId: string) {
    return `${this.prefix}.cancel.${jobId}`;
  }
  get cancelAll() {
    return `${this.prefix}.cancel.*`;
  }
  heartbeat(nodeId: string) {
    return `${this.prefix}.members.${nodeId}`;
  }
  get heartbeatAll() {
    return `${this.prefix}.members.*`;
  }
  /** Published after a job is queued: wakes idle workers at once instead of at their next poll. */
  get kick() {
    return `${this.prefix}.kick`;
  }
}
