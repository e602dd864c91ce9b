/** Turns a raw JSON body into a typed tool request, or a 400 that names every offending field. */
import type { z } from 'zod';
import { clip, serviceError, type ErrorDetail, type ServiceError } from '../errors.ts';
import { TOOL_NAMES, TOOLS, type ToolName, type ToolRequest } from './tools.ts';
import { pushAll } from '../util/arrays.ts';

/** zod issues → `{field, message}` with one entry per unknown key. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], tool: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ field: clip(base ? `${base}.${key}` : key), message: `is not a parameter of ${tool}` });
      }
    } else if (issue.code === 'invalid_key' && issue.issues.length > 0) {
      // A record key failed its own schema (for example a delab_options key that is not pp.*).
      out.push({ field: base, message: issue.issues[0]!.message });
    } else {
      out.push({ field: base, message: issue.message });
    }
  }
  return out;
}

export function describeDetails(details: ErrorDetail[]): string {
  return details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ');
}

/**
 * Validate a body for `tool`. `null` values are treated as absent (clients that
 * serialise unset optionals as null get the defaults), a decision docs/http-api.md records.
 */
/** The error for a path or stream message naming no tool. */
export const unknownTool = (tool: string): ServiceError =>
  serviceError('unknown_tool', 'tool', { tool: clip(tool), tools: TOOL_NAMES.join(', ') });

export function parseToolRequest<T extends ToolName>(tool: T, body: unknown): ToolRequest<T> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw serviceError(
      'invalid_request',
      'body_not_object',
      { tool },
      {
        details: [{ field: '', message: 'the body must be a JSON object' }],
      },
    );
  }
  const raw = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
  const details: ErrorDetail[] = [];
  if ('names' in raw && 'indices' in raw) {
    details.push({ field: 'names', message: 'specify only one of names and indices' });
    details.push({ field: 'indices', message: 'specify only one of names and indices' });
  }
  const result = TOOLS[tool].request.safeParse(raw);
  if (!result.success) pushAll(details, issuesToDetails(result.error.issues, tool));
  if (details.length > 0) {
    throw serviceError('invalid_request', 'fields', { tool, problems: describeDetails(details) }, { details });
  }
  return result.data as ToolRequest<T>;
}
