/**
 * The input limits of `POST /api/v1/<tool>`, applied to an MCP POST's messages before the SDK
 * sees them. The SDK's transport and its `tools/call` handler each validate the whole message
 * with zod, which copies every key of `params`, `params._meta` and `params.arguments`: a call with
 * 300,000 unknown argument keys took seconds there before the pipeline's own count refused it, where
 * HTTP refuses the same body on its raw text. Here the keys are counted (never more than the
 * limit past each object's first keys) and the arguments checked by the pipeline's own limits, so
 * an oversized call is answered with HTTP's error without the SDK or zod reading it.
 *
 * A body of 64 KiB or more is screened on its raw text, as HTTP's are (src/admission/raw-limits.ts):
 * JSON.parse of 300,000 keys, and counting them once parsed (V8 lists every key of an object for
 * `for…in`), cost far more than the one pass over the text. Its verdict replaces the parsed body.
 */
import { isToolName } from '../../contract/tools.ts';
import { countKeys, MAX_BODY_FIELDS, type InputLimits } from '../../admission/input-limits.ts';
import {
  RAW_SCAN_FROM_CHARS,
  rawLimitErrorAt,
  rawMember,
  rawScalar,
  rawTopObject,
} from '../../admission/raw-limits.ts';
import { ServiceError } from '../../errors.ts';

/** The raw text's verdict, carried as the parsed body: a symbol key, which no JSON text can make. */
const RAW_SCREENED = Symbol('lean-tool.mcpRawScreened');

/** What the screen found: nothing, one `tools/call` to answer with a tool error, or a message to refuse. */
export type Screened =
  undefined | { call: { id: string | number; tool: string; error: ServiceError } } | { invalid: string };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** `where` when `v` is an object with more keys than any MCP message needs, else undefined. */
function tooManyKeys(v: unknown, where: string): string | undefined {
  return isObject(v) && countKeys(v, MAX_BODY_FIELDS) > MAX_BODY_FIELDS
    ? `${where} has more than ${MAX_BODY_FIELDS} fields`
    : undefined;
}

/** The verdict on a body's raw text (≥ 64 KiB), as the body to hand on; undefined: parse it as usual. */
export function mcpRawScreen(raw: string, limits: InputLimits): object | undefined {
  if (raw.length < RAW_SCAN_FROM_CHARS) return undefined;
  const top = rawTopObject(raw);
  const params = top === undefined ? undefined : rawMember(raw, top, 'params');
  if (top === undefined || params === undefined) return undefined;
  const args = rawMember(raw, params, 'arguments');
  const error = args === undefined ? undefined : rawLimitErrorAt(raw, args, limits);
  if (error) {
    const id = rawScalar(raw, rawMember(raw, top, 'id'));
    const tool = rawScalar(raw, rawMember(raw, params, 'name'));
    const isCall = rawScalar(raw, rawMember(raw, top, 'method')) === 'tools/call';
    const screened: Screened =
      isCall && id !== undefined && typeof tool === 'string' && isToolName(tool)
        ? { call: { id, tool, error } }
        : { invalid: `params.arguments: ${error.message}` };
    return { [RAW_SCREENED]: screened };
  }
  const meta = rawMember(raw, params, '_meta');
  const over =
    rawLimitErrorAt(raw, params, limits) ?? (meta === undefined ? undefined : rawLimitErrorAt(raw, meta, limits));
  return over ? { [RAW_SCREENED]: { invalid: `params: ${over.message}` } } : undefined;
}

/** One JSON-RPC message: its own size first, then a tool call's arguments against the HTTP limits. */
function screenMessage(m: unknown, checkArguments: (args: unknown) => void): Screened {
  if (!isObject(m)) return undefined;
  const params = m.params;
  const invalid =
    tooManyKeys(m, 'the message') ??
    tooManyKeys(params, 'params') ??
    (isObject(params) ? tooManyKeys(params._meta, 'params._meta') : undefined);
  if (invalid) return { invalid };
  if (m.method !== 'tools/call' || !isObject(params) || !isObject(params.arguments)) return undefined;
  try {
    checkArguments(params.arguments);
    return undefined;
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    const id = m.id;
    const tool = params.name;
    if ((typeof id === 'string' || typeof id === 'number') && typeof tool === 'string' && isToolName(tool))
      return { call: { id, tool, error: e } };
    return { invalid: `params.arguments: ${e.message}` };
  }
}

/**
 * The POST body's messages (one, or a batch) screened in order. A batch holding a call over the
 * limits is refused whole: answering part of it here and part in the SDK would split one response.
 */
export function screenMcpBody(body: unknown, checkArguments: (args: unknown) => void): Screened {
  if (isObject(body) && RAW_SCREENED in body) return body[RAW_SCREENED] as Screened;
  if (!Array.isArray(body)) return screenMessage(body, checkArguments);
  for (const m of body) {
    const s = screenMessage(m, checkArguments);
    if (s) return 'invalid' in s ? s : { invalid: `a batched tools/call: ${s.call.error.message}` };
  }
  return undefined;
}
