/**
 * Reading one `/v1/stream` message: the JSON (the same parser and prototype-poisoning rule as
 * HTTP bodies), its shape (a request or a cancel), and the field names of a refusal.
 */
import sjson from 'secure-json-parse';
import type { RawData } from 'ws';
import type { z } from 'zod';
import { streamCancel, streamClientMessage, streamRequest, type StreamClientMessage } from '../contract/stream.ts';
import { describeDetails, fieldsError, issuesToDetails, type ClippedDetails } from '../contract/validate.ts';
import { ServiceError, serviceError, type ErrorDetail } from '../errors.ts';

export type StreamMessage = StreamClientMessage;
export type StreamRequest = z.infer<typeof streamRequest>;

/** A parsed message, or the error to answer and the id it names (when it carried one). */
export type Read = { ok: true; msg: StreamMessage } | { ok: false; id: string | null; error: unknown };

/**
 * Field names for a refused stream message: the issues of the shape the client was evidently
 * sending (a cancel when it has `cancel`, else a request), not of zod's union as a whole.
 */
function streamDetails(raw: unknown, issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return [{ field: '', message: 'must be a JSON object {id, tool, request} or {id, cancel: true}' }];
  const r = ('cancel' in raw ? streamCancel : streamRequest).safeParse(raw);
  return issuesToDetails(r.success ? issues : r.error.issues, 'the stream');
}

/** Every answer names the client's id when the message carried one, even if nothing else in it is valid. */
export function readMessage(data: RawData, isBinary: boolean): Read {
  let id: string | null = null;
  try {
    if (isBinary) throw serviceError('invalid_request', 'binary_frame');
    // The same parser and prototype-poisoning rule as HTTP bodies (fastify's): a `__proto__` or
    // `constructor.prototype` key is malformed JSON on both channels, never silently dropped.
    const raw: unknown = sjson.parse(String(data), undefined, { protoAction: 'error', constructorAction: 'error' });
    const rawId = (raw as { id?: unknown } | null)?.id;
    if (typeof rawId === 'string' && rawId.length > 0) id = rawId;
    const parsed = streamClientMessage.safeParse(raw);
    if (!parsed.success) {
      const details = streamDetails(raw, parsed.error.issues);
      throw serviceError('invalid_request', 'stream_message', { problems: describeDetails(details) }, { details });
    }
    return { ok: true, msg: parsed.data };
  } catch (e) {
    const error =
      e instanceof SyntaxError ? serviceError('malformed_json', 'stream_message', { reason: e.message }) : e;
    return { ok: false, id, error };
  }
}

/** A request's validation error, with field paths relative to the stream message (`request.environment`). */
export function nestDetails(e: unknown, tool: string): unknown {
  if (!(e instanceof ServiceError) || !e.details) return e;
  const details = e.details.map((d) => ({ ...d, field: d.field ? `request.${d.field}` : 'request' }));
  return e.code === 'invalid_request'
    ? fieldsError(tool, details, (e.details as ClippedDetails).omitted)
    : e.withDetails(details);
}
