/**
 * What travels between fronts and workers, as JSON. A job carries everything a worker
 * needs to run it without asking back: the validated request, its deadline (absolute,
 * wall clock) and the cache key that names its outcome.
 */
import type { ErrorCode, ErrorDetail } from '../errors.ts';

export interface Job {
  /** Unique per submission: idempotency key of its outcome, target of cancel and progress. */
  id: string;
  tool: string;
  environment: string;
  /** The validated request (defaults applied). */
  request: Record<string, unknown>;
  /** The result cache key (sha256): outcomes are published under it. */
  key: string;
  /** Epoch milliseconds after which the result is of no use (the front's deadline). */
  deadlineAt: number;
  deadlineSeconds: number;
  /** Whether the front wants progress events. */
  progress: boolean;
  /** The front that submitted it (status, logs). */
  front: string;
}

export type Outcome =
  | { job: string; status: 'ok'; result: object; cacheable: boolean; worker: string }
  | {
      job: string;
      status: 'error';
      error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
      worker: string;
    };

export interface ProgressEvent {
  stage: string;
  done?: number;
  total?: number;
}

export interface Heartbeat {
  node: string;
  /** Epoch ms when sent. */
  at: number;
  slots: number;
  busy: number;
  /** Work keys held warm (`<env token>.<hash>`), most recent first. */
  warm: string[];
  /** Jobs running now, by consumer name (lets idle workers tell an orphaned delivery from a busy one). */
  running: Record<string, number>;
  /** Environments this worker can run Lean for. */
  environments: Record<string, boolean>;
  /** Jobs finished since start. */
  done: number;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
export const encode = (v: unknown): Uint8Array => enc.encode(JSON.stringify(v));
export const decode = <T>(data: Uint8Array): T => JSON.parse(dec.decode(data)) as T;
