/**
 * A tool result's HTTP response text: the result with its `info` (the environment's provenance,
 * src/envs/provenance.ts, and `request_id`: attachRequestId), as JSON. A miss's result was just
 * serialised once for the cache (ResultCache.set: the same members with a hit's timings and the
 * same stored `info`, its id a placeholder); when `timings` ended that text, the response is that
 * text with the real timings and the id put back at its end, byte for byte what serialising the
 * result again writes (test/server/response-text.test.ts), without a second walk over the result
 * (visible in the daemon's profile of a miss even for the bench's small result, and in proportion
 * to a large one's size).
 */
import { storedTail } from '../cache/result-cache.ts';
import type { Provenance } from '../envs/provenance.ts';
import { attachRequestId } from './request-id.ts';
import { SerializedResult } from '../workers/raw-request.ts';

export function responseText(
  result: object,
  requestId: string,
  stored: string | undefined,
  provenance?: Provenance,
): string {
  const members = provenance?.members ?? '';
  // A request id is a UUID (newRequestId): no character needs escaping.
  const info = `"info":{${members}${members ? ',' : ''}"request_id":"${requestId}"}}`;
  // A worker's answer to a large body, as its text: a tool's result has no `info` of its own (attachRequestId).
  if (result instanceof SerializedResult && result.json.endsWith('}') && result.json !== '{}')
    return `${result.json.slice(0, -1)},${info}`;
  // The tail can only end the text when `timings` is the result's last top-level member: inside a
  // nested value a closing brace would follow, inside a string the quotes would be escaped. Timings
  // absent (or a value JSON leaves out) were appended by the cache: then the result is serialised again.
  const tail = storedTail(members);
  const timings =
    stored !== undefined && stored.endsWith(tail) && !('info' in result)
      ? (JSON.stringify((result as { timings?: unknown }).timings) as string | undefined)
      : undefined;
  if (stored === undefined || timings === undefined)
    return JSON.stringify(attachRequestId(result, requestId, provenance?.info));
  return `${stored.slice(0, stored.length - tail.length)},"timings":${timings},${info}`;
}
