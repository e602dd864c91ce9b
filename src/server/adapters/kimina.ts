/**
 * Kimina Lean Server's routes (project-numina/kimina-lean-server), for its `kimina_client`
 * and scripts written against it: `POST /api/check` (`snippets: [{id, code}]`), `POST /verify`
 * and its older name `POST /one_pass_verify_batch` (`codes: [{custom_id, proof|code}]`), and
 * `GET /health`. Request and response shapes are Kimina's [kimina-lean-server fb2393d:
 * client/kimina_client/models.py `CheckRequest`, `ReplResponse`, `VerifyRequestBody`,
 * `BackwardResponse`; server/routers/check.py, backward.py, health.py].
 *
 * Each snippet is one `check` request through the pipeline (validation, cache, admission under
 * the caller's key, deadline), elaborated with the snippet's own imports (`ignore_imports:
 * false`, as Kimina runs each snippet's header; `import Mathlib.*` read as `import Mathlib`,
 * as Kimina reads it: kimina-header.ts) on the configured environment, with
 * `structured: true`: its `messages` and `sorries` are the REPL's records, which is what Kimina
 * passes through as `response`. What Kimina answers per snippet (a timeout, a REPL failure)
 * is a per-snippet `error`; what it answers for the request (429, 401) is the request's status.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Caller } from '../../admission/keys.ts';
import type { ToolResponse } from '../../contract/tools.ts';
import { describeDetails, issuesToDetails } from '../../contract/validate.ts';
import { serviceError, TIMEOUT_CODES, type ServiceError } from '../../errors.ts';
import { toServiceError } from '../error-handler.ts';
import type { Pipeline, RunInfo } from '../pipeline.ts';
import { kiminaHeader } from './kimina-header.ts';

/** The tool names Kimina's routes record (request log, metrics): a closed set, never from input. */
export const KIMINA_TOOLS = { check: 'kimina:check', verify: 'kimina:verify' } as const;

export interface KiminaDeps {
  authorize: (request: FastifyRequest) => Caller;
  closing: () => boolean;
  pipeline: Pipeline;
  /** The environment snippets run on (config `server.kimina.environment`, else the default: src/envs/latest.ts). */
  environment: () => string | undefined;
  /** Snippets (or codes) one request may carry. */
  maxSnippets: number;
}

/** Kimina's `Infotree` levels: accepted, not produced (docs/kimina.md). */
const infotree = z.enum(['full', 'tactics', 'original', 'substantive']).nullish();

/** models.py `CheckRequest` (with `BaseRequest`): unknown fields are ignored, as pydantic does by default. */
const checkBody = z.object({
  snippets: z
    .array(z.object({ id: z.string(), code: z.string() }))
    .min(1, '`snippets` must be non empty')
    .refine((s) => new Set(s.map((x) => x.id)).size === s.length, '`snippets` must have unique ids'),
  timeout: z.number().int().min(0).default(30),
  debug: z.boolean().default(false),
  reuse: z.boolean().default(true),
  infotree,
});

/** models.py `VerifyRequestBody` and `Code` (`proof`, else `code`: the older autoformalizer clients' field). */
const verifyBody = z.object({
  codes: z.array(
    z
      .object({
        custom_id: z.union([z.string(), z.number().int()]),
        proof: z.string().nullish(),
        code: z.string().nullish(),
      })
      .refine((c) => typeof (c.proof ?? c.code) === 'string', 'has no proof/code content'),
  ),
  timeout: z.number().int().min(0).default(300),
  infotree_type: infotree,
  disable_cache: z.boolean().default(false),
});

/** The REPL's command response as Kimina passes it on (models.py `CommandResponse`; empty lists left out, as the REPL does). */
export interface CommandResponse {
  messages?: NonNullable<ToolResponse<'check'>['structured']>['messages'];
  sorries?: NonNullable<ToolResponse<'check'>['structured']>['sorries'];
}

/** models.py `ReplResponse` without `None`s (the routes use `response_model_exclude_none`). */
export interface ReplResponse {
  id: string;
  time: number;
  error?: string;
  response?: CommandResponse;
}

function parseBody<S extends z.ZodType>(schema: S, body: unknown, route: string): z.output<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const details = issuesToDetails(r.error.issues, route);
  throw serviceError('invalid_request', 'fields', { tool: route, problems: describeDetails(details) }, { details });
}

/**
 * A snippet's answer from its `check` result: Lean's records, or, when the run reported a Lean
 * failure (the pipeline's typed flag, never a message text), the failure Kimina reports as `error`.
 */
export function toReplResponse(id: string, time: number, r: ToolResponse<'check'>, leanFailed: boolean): ReplResponse {
  if (leanFailed) return { id, time, error: r.tool_messages.errors.join('\n') || 'Lean failed while elaborating' };
  const s = r.structured ?? { messages: [], sorries: [] };
  return {
    id,
    time,
    response: {
      ...(s.messages.length > 0 ? { messages: s.messages } : {}),
      ...(s.sorries.length > 0 ? { sorries: s.sorries } : {}),
    },
  };
}

interface Run {
  caller: Caller;
  request: FastifyRequest;
  signal: AbortSignal;
  environment: string;
  timeout: number;
}

/**
 * One snippet through the pipeline. A deadline is Kimina's per-snippet timeout error (its text
 * holds "timed out", which its client classifies as `timeout_error`); any other refusal fails
 * the request.
 */
async function runSnippet(pipeline: Pipeline, id: string, code: string, run: Run): Promise<ReplResponse> {
  const timedOut = { id, time: run.timeout, error: `Lean REPL command timed out in ${run.timeout} seconds` };
  if (run.timeout === 0) return timedOut;
  const info: RunInfo = {};
  const t0 = performance.now();
  // Kimina's `time` is the REPL's, in seconds: the time the snippet waited in the admission queue is not counted.
  const seconds = () => Math.max(0, performance.now() - t0 - (info.queueMs ?? 0)) / 1000;
  try {
    const r = await pipeline.run(
      'check',
      {
        content: kiminaHeader(code),
        environment: run.environment,
        ignore_imports: false,
        timeout_seconds: run.timeout,
        structured: true,
      },
      // Kimina times the snippet's command, not the REPL's start (routers/check.py: get_repl untimed, then prep and
      // send_timeout each with `timeout`): the deadline counts from the session being ready.
      { caller: run.caller, log: run.request.log, signal: run.signal, info, timeoutFromSession: true },
    );
    return toReplResponse(id, seconds(), r, info.leanFailed === true);
  } catch (e) {
    const se = toServiceError(e);
    // The service's deadline or Lean's own timeout: Kimina answers both as its per-snippet timeout.
    if (TIMEOUT_CODES.has(se.code)) return timedOut;
    // A REPL over its memory or process cap is that snippet's failure, as any REPL failure is in Kimina
    // (routers/check.py reports an exception of one snippet as its `error`); the others still answer.
    if (se.code === 'lean_resource_exceeded') return { id, time: seconds(), error: se.message };
    throw se;
  }
}

/** Every snippet at once (admission queues them per caller); the first request-level refusal stops the rest. */
async function runAll(
  deps: KiminaDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  snippets: { id: string; code: string }[],
  timeout: number,
): Promise<ReplResponse[]> {
  const caller = deps.authorize(request);
  const environment = deps.environment();
  if (!environment)
    throw serviceError('unknown_environment', 'environment', { name: '(none)', known: 'none configured' });
  if (snippets.length > deps.maxSnippets)
    throw serviceError('invalid_request', 'limit', {
      field: 'snippets',
      problem: `hold ${snippets.length} entries; at most ${deps.maxSnippets} (server.kimina.maxSnippets)`,
    });
  const ctrl = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ctrl.abort(serviceError('cancelled', 'client_disconnected'));
  });
  const run: Run = { caller, request, signal: ctrl.signal, environment, timeout };
  let first: ServiceError | undefined;
  const results = await Promise.all(
    snippets.map((s) =>
      runSnippet(deps.pipeline, s.id, s.code, run).catch((e: ServiceError) => {
        first ??= e;
        ctrl.abort(e);
        return undefined;
      }),
    ),
  );
  if (first) throw first;
  return results as ReplResponse[];
}

export function registerKimina(app: FastifyInstance, deps: KiminaDeps): void {
  const check = async (request: FastifyRequest, reply: FastifyReply) => {
    request.svc = { tool: KIMINA_TOOLS.check };
    const body = parseBody(checkBody, request.body, 'kimina /api/check');
    return { results: await runAll(deps, request, reply, body.snippets, body.timeout) };
  };
  const verify = async (request: FastifyRequest, reply: FastifyReply) => {
    request.svc = { tool: KIMINA_TOOLS.verify };
    const body = parseBody(verifyBody, request.body, 'kimina /verify');
    // backward.py: `Snippet(id=str(code.custom_id), code=code.get_proof_content())`.
    const snippets = body.codes.map((c) => ({ id: String(c.custom_id), code: (c.proof ?? c.code)! }));
    const results = await runAll(deps, request, reply, snippets, body.timeout);
    // backward.py / models.py `extend`: the snippet's time moves into its response.
    return {
      results: results.map((r) => ({
        custom_id: r.id,
        ...(r.error !== undefined ? { error: r.error } : {}),
        ...(r.response ? { response: { ...r.response, time: r.time } } : {}),
      })),
    };
  };
  // health.py: `{"status": "ok"}`, no key (a load balancer's probe carries none).
  const health = async () => {
    if (deps.closing()) throw serviceError('overloaded', 'shutting_down', { what: 'the daemon' });
    return { status: 'ok' };
  };
  for (const url of ['/api/check', '/api/check/']) app.post(url, check);
  for (const url of ['/verify', '/one_pass_verify_batch']) app.post(url, verify);
  for (const url of ['/health', '/health/']) app.get(url, health);
}
