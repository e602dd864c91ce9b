/**
 * Sending on `/v1/stream`: every event goes through one guarded, bounded path.
 * A listener of the socket that throws ends the process (ws emits from its parser), so
 * nothing here may throw: serialisation and `socket.send` are caught, an event larger than
 * one message may be becomes a bounded `response_too_large` error for its id, an error
 * event's message and details are clipped (errorBody), and flow control (pause past the
 * budget, close past the hard limit) is applied after each send.
 */
import type { WebSocket } from 'ws';
import type { StreamEvent } from '../contract/stream.ts';
import { serviceError, type ServiceError } from '../errors.ts';
import type { Log } from '../log.ts';
import { errorBody, toServiceError } from './error-handler.ts';

/** Flow control and liveness of one socket (config `server.stream`; README "Timeouts and backpressure"). */
export interface StreamLimits {
  /** Past this many unsent bytes the daemon stops reading new messages from the socket (resumes below half). */
  sendBudgetBytes: number;
  /** Past this many unsent bytes the socket is closed with CLOSE_SLOW_READER; also the largest single event. */
  sendHardLimitBytes: number;
  /** A ping every this many ms; no pong by the next one closes the socket. */
  pingIntervalMs: number;
  /** A socket with no message and nothing in flight for this long is closed (1000, "idle"). */
  idleTimeoutMs: number;
}

/** Close code for a client that does not read its results (application range, documented in README). */
export const CLOSE_SLOW_READER = 4008;

/** An error event for `id`, of bounded size whatever the error holds. */
export function errorEvent(id: string | null, err: unknown): StreamEvent {
  return { id, event: 'error', error: errorBody(toServiceError(err)).error };
}

/**
 * The text of `e`, at most `maxChars` characters (UTF-16 units, a lower bound of its bytes
 * over 3): an event that cannot be serialised (past the longest string) or is too large is
 * replaced by a bounded error for the same id, never thrown.
 */
export function serializeEvent(e: StreamEvent, maxChars: number, resultJson?: string): string {
  let text: string | undefined;
  let failure: ServiceError | undefined;
  try {
    text = resultJson === undefined ? JSON.stringify(e) : withResultText(e, resultJson);
  } catch (err) {
    // RangeError "Invalid string length": larger than any string can be.
    failure = serviceError('response_too_large', 'event', { limit: maxChars }, { cause: err });
  }
  if (text !== undefined && text.length <= maxChars) return text;
  failure ??= serviceError('response_too_large', 'event', { limit: maxChars });
  // The replacement is small by construction (errorBody clips), so this cannot fail again.
  return JSON.stringify(errorEvent(e.id, failure));
}

/** Stands for the result in an event serialised around a result that is already JSON text. */
const RESULT_MARK = '\u0000result';

/**
 * `e` serialised with `resultJson` (a result already JSON text: a worker's answer to a large
 * request) as its `result`, spliced in without parsing it. The mark is found from the end:
 * only `request_id` (a UUID) follows `result`, and a quote in a client's id is escaped.
 */
function withResultText(e: StreamEvent, resultJson: string): string {
  const text = JSON.stringify({ ...e, result: RESULT_MARK });
  const mark = `"result":${JSON.stringify(RESULT_MARK)}`;
  const at = text.lastIndexOf(mark);
  return `${text.slice(0, at)}"result":${resultJson}${text.slice(at + mark.length)}`;
}

/**
 * The send function of one socket: never throws, drops events once the socket is not open,
 * and applies the flow-control limits after each write.
 */
export function createSender(
  socket: WebSocket,
  limits: StreamLimits,
  log: Log,
): { send: (e: StreamEvent, resultJson?: string) => void; paused: () => boolean } {
  let paused = false;
  const afterWrite = () => {
    if (paused && socket.bufferedAmount <= limits.sendBudgetBytes / 2 && socket.readyState === socket.OPEN) {
      paused = false;
      socket.resume();
    }
  };
  const send = (e: StreamEvent, resultJson?: string) => {
    if (socket.readyState !== socket.OPEN) return;
    try {
      socket.send(serializeEvent(e, limits.sendHardLimitBytes, resultJson), afterWrite);
    } catch (err) {
      log.error({ err }, 'stream send failed; closing the socket');
      socket.terminate();
      return;
    }
    const buffered = socket.bufferedAmount;
    if (buffered > limits.sendHardLimitBytes) {
      log.warn({ buffered }, 'stream client does not read its results; closing');
      socket.close(CLOSE_SLOW_READER, 'send buffer over its limit: the client is not reading');
      // close() waits for the buffered data; a reader that never reads must not hold it.
      setTimeout(() => socket.terminate(), 1_000).unref();
    } else if (!paused && buffered > limits.sendBudgetBytes) {
      paused = true;
      socket.pause();
    }
  };
  return { send, paused: () => paused };
}
