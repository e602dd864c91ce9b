/** Turns a raw JSON body into a typed tool request, or a 400 that names every offending field. */
import type { z } from 'zod';
import { clip, serviceError, type ErrorDetail, type ServiceError } from '../errors.ts';
import { TOOL_NAMES, TOOLS, type ToolName, type ToolRequest } from './tools.ts';
import { pushAll } from '../util/arrays.ts';
import { takeLargeFields } from './large-fields.ts';

/**
 * At most this many problems are reported per request: a body of many wrong items
 * (100k numbers in `names`) otherwise answers with one detail per item, an error ~80× its
 * input that once outgrew JavaScript's longest string. The rest are counted, not listed.
 */
export const MAX_REPORTED_ISSUES = 5;
/** Characters of one detail's field path or message (a key or path may echo the input). */
const DETAIL_CHARS = 200;

/** `details` past MAX_REPORTED_ISSUES dropped, and how many were. */
export interface ClippedDetails extends Array<ErrorDetail> {
  omitted?: number;
}

const detail = (field: string, message: string): ErrorDetail => ({
  field: clip(field, DETAIL_CHARS),
  message: clip(message, DETAIL_CHARS),
});

/** zod issues → `{field, message}` with one entry per unknown key; at most MAX_REPORTED_ISSUES of them. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], tool: string): ClippedDetails {
  const out: ClippedDetails = [];
  let total = 0;
  const add = (field: string, message: string) => {
    if (++total <= MAX_REPORTED_ISSUES) out.push(detail(field, message));
  };
  for (const issue of issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      // Counted, not visited: a body of a million unknown keys is one issue holding all of them.
      for (const key of issue.keys.slice(0, MAX_REPORTED_ISSUES))
        add(base ? `${base}.${key}` : key, `is not a parameter of ${tool}`);
      total += Math.max(0, issue.keys.length - MAX_REPORTED_ISSUES);
    } else if (issue.code === 'invalid_key' && issue.issues.length > 0) {
      // A record key failed its own schema (for example a delab_options key that is not pp.*).
      add(base, issue.issues[0]!.message);
    } else {
      add(base, issue.message);
    }
  }
  if (total > out.length) out.omitted = total - out.length;
  return out;
}

/** The problems as one sentence; `omitted` more are counted at the end. */
export function describeDetails(details: ErrorDetail[], omitted = (details as ClippedDetails).omitted ?? 0): string {
  const shown = details
    .slice(0, MAX_REPORTED_ISSUES)
    .map((d) => (d.field ? `${d.field}: ${d.message}` : d.message))
    .join('; ');
  const more = omitted + Math.max(0, details.length - MAX_REPORTED_ISSUES);
  return more > 0 ? `${shown}; and ${more} more problem${more === 1 ? '' : 's'}` : shown;
}

/** The error for a path or stream message naming no tool. */
export const unknownTool = (tool: string): ServiceError =>
  serviceError('unknown_tool', 'tool', { tool: clip(tool), tools: TOOL_NAMES.join(', ') });

/**
 * Validate a body for `tool`. `null` values are treated as absent (clients that
 * serialise unset optionals as null get the defaults), a decision docs/http-api.md records.
 */
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
  const raw = withoutNulls(body as Record<string, unknown>);
  const details: ErrorDetail[] = [];
  if ('names' in raw && 'indices' in raw) {
    details.push({ field: 'names', message: 'specify only one of names and indices' });
    details.push({ field: 'indices', message: 'specify only one of names and indices' });
  }
  // Large lists and maps are checked by a loop, the rest of the body by zod (large-fields.ts).
  const large = takeLargeFields(raw, TOOLS[tool].request.shape, MAX_REPORTED_ISSUES);
  pushAll(details, large.details);
  let omitted = large.omitted;
  const result = TOOLS[tool].request.safeParse(large.body);
  if (!result.success) {
    const found = issuesToDetails(result.error.issues, tool);
    pushAll(details, found);
    omitted += found.omitted ?? 0;
  }
  if (details.length > 0) throw fieldsError(tool, details, omitted);
  return Object.assign(result.data!, large.originals) as ToolRequest<T>;
}

/** The body without its `null` members; the body itself when it has none (the usual case: no copy). */
function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  for (const k in body) {
    if (body[k] === null) return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
  }
  return body;
}

/**
 * The 400 for `details` (plus `omitted` more): at most MAX_REPORTED_ISSUES listed; the shown
 * list carries the count of the rest (`ClippedDetails.omitted`, not serialised) for the stream's re-wording.
 */
export function fieldsError(tool: string, details: ErrorDetail[], omitted = 0): ServiceError {
  const shown: ClippedDetails = details.slice(0, MAX_REPORTED_ISSUES);
  const rest = omitted + details.length - shown.length;
  if (rest > 0) shown.omitted = rest;
  return serviceError('invalid_request', 'fields', { tool, problems: describeDetails(shown) }, { details: shown });
}
