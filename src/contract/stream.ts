/** Messages of the WebSocket channel `/v1/stream` (both directions). */
import { z } from 'zod';

export const streamRequest = z.strictObject({
  id: z.string().min(1).max(200),
  tool: z.string().min(1),
  request: z.record(z.string(), z.unknown()),
});
export const streamCancel = z.strictObject({ id: z.string().min(1).max(200), cancel: z.literal(true) });
export const streamClientMessage = z.union([streamRequest, streamCancel]);
export type StreamClientMessage = z.infer<typeof streamClientMessage>;

/**
 * Server → client: every event names the request id it belongs to (null for a message that had none).
 * Events of an accepted request also carry `request_id`, the daemon's id of it (the result's
 * `info.request_id`, usable with POST /v1/shared-links).
 */
export type StreamEvent = (
  | { id: string; event: 'queued' }
  | { id: string; event: 'started'; deadline_seconds: number | undefined }
  | { id: string; event: 'progress'; stage: string; done?: number | undefined; total?: number | undefined }
  // `cache` only when the daemon tells it (config server.cacheStatus).
  | { id: string; event: 'result'; cache?: 'hit' | 'miss'; result: unknown }
  | {
      id: string | null;
      event: 'error';
      error: { code: string; message: string; details?: { field: string; message: string }[] };
    }
) & { request_id?: string };
