/**
 * `POST /v1/shared-links` and `GET /v1/shared-links/{request_id}`, as AXLE's MCP server uses them
 * (AxiomMath/axle-mcp-server `axle_mcp_server/server.py`: `_post_shared_link` expects 201 and
 * reads `saved_at`; `_get_shared_link` reads `request_id, tool_name, inputs, result, state,
 * created_at`).
 */
import { z } from 'zod';

export const shareRequest = z.strictObject({
  request_id: z.uuid({ error: 'must be the info.request_id (a UUID) of a tool response' }),
});

export const shareCreated = z.object({
  request_id: z.string(),
  tool_name: z.string(),
  saved_at: z.string().describe('ISO 8601 time the link was saved'),
  expires_at: z.string().describe('ISO 8601 time after which the link is forgotten (sharedLinks.ttlSeconds)'),
});

export const sharedLink = z.object({
  request_id: z.string(),
  tool_name: z.string(),
  inputs: z.record(z.string(), z.unknown()).describe('The request body as sent'),
  result: z.record(z.string(), z.unknown()).describe('The response as sent (with its info.request_id)'),
  state: z.literal('completed').describe('Only answered requests are recorded'),
  created_at: z.string().describe('ISO 8601 time of the request'),
});
export type SharedLink = z.infer<typeof sharedLink>;
