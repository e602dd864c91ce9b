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

/** The kinds of work subject of one environment: see `Names`. */
export type WorkKind = 'any' | 'plain' | `b${number}`;

/**
 * The work subjects are bounded: per environment, `any` (Lean jobs whose header no live worker
 * holds warm), `plain` (jobs that need no Lean) and `affinityBuckets` buckets a header hashes
 * into (Lean jobs whose header a live worker advertises warm). So the stream has at most
 * environments × (buckets + 2) consumers whatever the number of headers ever seen, and a
 * worker's scan of them costs the same at 10 headers as at 10,000 (a consumer per
 * header outgrew JetStream's first page of 256 and stranded jobs). Two warm headers in one
 * bucket share its queue: either holder may take the other's job (a cold start there, never
 * a lost job); with 16 buckets and a few warm headers per worker that is rare.
 */
export class Names {
  constructor(
    readonly prefix: string,
    readonly buckets = 16,
  ) {}
  get stream() {
    return `${this.prefix.toUpperCase()}_WORK`;
  }
  get workAll() {
    return `${this.prefix}.work.>`;
  }
  get workPrefix() {
    return `${this.prefix}.work.`;
  }
  workSubject(env: string, kind: WorkKind) {
    return `${this.workPrefix}${token(env)}.${kind}`;
  }
  /** The affinity bucket of a header (a prefix of its hash, modulo the bucket count). */
  bucket(k: WorkKey): WorkKind {
    return `b${parseInt(k.hash.slice(0, 8), 16) % this.buckets}`;
  }
  bucketSubject(k: WorkKey) {
    return this.workSubject(k.env, this.bucket(k));
  }
  /** The durable consumer of a work subject: `<env token>_<kind>` (durable names take no dots). */
  consumerOf(subject: string): string {
    return subject.slice(this.workPrefix.length).replace('.', '_');
  }
  /** The environment token and kind of a work subject, or undefined for anything else. */
  parseWork(subject: string): { envToken: string; kind: string } | undefined {
    if (!subject.startsWith(this.workPrefix)) return undefined;
    const rest = subject.slice(this.workPrefix.length).split('.');
    return rest.length === 2 ? { envToken: rest[0]!, kind: rest[1]! } : undefined;
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
  /** A worker's proof search leases (request/reply; src/cluster/search-worker.ts). */
  search(nodeId: string) {
    return `${this.prefix}.search.${nodeId}`;
  }
  /** Published after a job is queued: wakes idle workers at once instead of at their next poll. */
  get kick() {
    return `${this.prefix}.kick`;
  }
  /** Published by a front that reconnected to NATS: workers send again the outcomes it may have missed (deliver.ts). */
  get frontBack() {
    return `${this.prefix}.front.back`;
  }
}
