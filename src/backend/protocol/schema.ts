/**
 * Every response shape of the REPL, parsed with zod [repl v4.28.0: REPL/JSON.lean]. Empty lists
 * are omitted by the REPL and default to [] here; `endPos` may be missing or null.
 */
import { z } from 'zod';

export const pos = z.object({ line: z.number().int().nonnegative(), column: z.number().int().nonnegative() });
export type ReplPos = z.infer<typeof pos>;

export const replMessage = z.object({
  severity: z.enum(['trace', 'info', 'warning', 'error']),
  pos,
  endPos: pos.nullish(),
  data: z.string(),
});
export type ReplMessage = z.infer<typeof replMessage>;

export const replSorry = z.object({
  goal: z.string(),
  proofState: z.number().int().nullish(),
  pos: pos.optional(),
  endPos: pos.optional(),
});
export type ReplSorry = z.infer<typeof replSorry>;

export const replTactic = z.object({
  tactic: z.string(),
  goals: z.string(),
  pos,
  endPos: pos,
  proofState: z.number().int().nullish(),
  usedConstants: z.array(z.string()).default([]),
});

export const commandResponse = z.object({
  env: z.number().int().nonnegative(),
  messages: z.array(replMessage).default([]),
  sorries: z.array(replSorry).default([]),
  tactics: z.array(replTactic).default([]),
  infotree: z.unknown().optional(),
});
export type CommandResponse = z.infer<typeof commandResponse>;

export const proofStepResponse = z.object({
  proofState: z.number().int().nonnegative(),
  goals: z.array(z.string()),
  messages: z.array(replMessage).default([]),
  sorries: z.array(replSorry).default([]),
  traces: z.array(z.string()).default([]),
  proofStatus: z.string().optional(),
});
export type ProofStepResponse = z.infer<typeof proofStepResponse>;

export const errorResponse = z.object({ message: z.string() });
export type ErrorResponse = z.infer<typeof errorResponse>;

export type ReplResponse =
  | { type: 'command'; value: CommandResponse }
  | { type: 'proofStep'; value: ProofStepResponse }
  | { type: 'error'; value: ErrorResponse };

/**
 * Classify and parse one decoded response; throws a ZodError if it fits no shape. `byHand` false
 * (config fastPaths.replAnswerByHand off): zod alone, the plain path, with the same output.
 */
export function parseResponse(json: unknown, byHand = true): ReplResponse {
  if (json && typeof json === 'object') {
    if ('proofState' in json && 'goals' in json) return { type: 'proofStep', value: proofStepResponse.parse(json) };
    if ('env' in json)
      return {
        type: 'command',
        value: (byHand ? plainCommandResponse(json) : undefined) ?? commandResponse.parse(json),
      };
    if ('message' in json) return { type: 'error', value: errorResponse.parse(json) };
  }
  // Let zod say what is wrong with it.
  return { type: 'command', value: commandResponse.parse(json) };
}

/*
 * The common command response (an env, messages and sorries; no tactics list) read by hand: the
 * same checks and the same output as `commandResponse.parse`, a few µs less per command than
 * zod's generic walk (every miss reads one). Anything else, or anything that fails a check, is
 * left to zod (undefined), which parses or says what is wrong; test/backend/protocol.test.ts
 * holds the two to the same output on every recorded response.
 *
 * Fast path (config fastPaths.replAnswerByHand; off: zod alone). Retire when:
 * `node --import tsx bench/fast-paths.ts parse` measures zod alone under 1.25× the hand read (a
 * faster zod), or the REPL's answer changes shape; or re-check by 2027-05-31.
 */
const SEVERITIES: ReadonlySet<unknown> = new Set(replMessage.shape.severity.options);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function plainPos(v: unknown): ReplPos | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const { line, column } = v as Record<string, unknown>;
  return isCount(line) && isCount(column) ? { line, column } : undefined;
}

/** Copies the optional position `key` of `from` (absent stays absent; null only where `nullable`); false when malformed. */
function copyPos(from: Record<string, unknown>, to: Record<string, unknown>, key: string, nullable: boolean): boolean {
  if (!(key in from)) return true;
  const v = from[key];
  if (v === undefined || (v === null && nullable)) {
    to[key] = v;
    return true;
  }
  const p = plainPos(v);
  if (p) to[key] = p;
  return p !== undefined;
}

function plainMessage(v: unknown): ReplMessage | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const m = v as Record<string, unknown>;
  const pos = plainPos(m.pos);
  if (!SEVERITIES.has(m.severity) || !pos || typeof m.data !== 'string') return undefined;
  const out: Record<string, unknown> = { severity: m.severity, pos };
  if (!copyPos(m, out, 'endPos', true)) return undefined;
  out.data = m.data;
  return out as ReplMessage;
}

function plainSorry(v: unknown): ReplSorry | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const x = v as Record<string, unknown>;
  if (typeof x.goal !== 'string') return undefined;
  const out: Record<string, unknown> = { goal: x.goal };
  if ('proofState' in x) {
    const p = x.proofState;
    if (p !== undefined && p !== null && !(typeof p === 'number' && Number.isInteger(p))) return undefined;
    out.proofState = p;
  }
  return copyPos(x, out, 'pos', false) && copyPos(x, out, 'endPos', false) ? (out as ReplSorry) : undefined;
}

/** Each item of an optional list read by `item` ([] when absent), or undefined when one is malformed. */
function plainList<T>(v: unknown, item: (x: unknown) => T | undefined): T[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  const out: T[] = [];
  for (const x of v) {
    const r = item(x);
    if (r === undefined) return undefined;
    out.push(r);
  }
  return out;
}

/** The common command response read by hand (above); undefined: another shape, or malformed (zod decides). */
export function plainCommandResponse(json: object): CommandResponse | undefined {
  const r = json as Record<string, unknown>;
  if (!isCount(r.env) || (r.tactics !== undefined && !(Array.isArray(r.tactics) && r.tactics.length === 0)))
    return undefined;
  const messages = plainList(r.messages, plainMessage);
  const sorries = messages && plainList(r.sorries, plainSorry);
  if (!messages || !sorries) return undefined;
  const out: CommandResponse = { env: r.env, messages, sorries, tactics: [] };
  if ('infotree' in r) out.infotree = r.infotree;
  return out;
}

/** The request shapes we send live in requests.ts (one typed request type). */
export type { CommandRequest, ProofStepRequest, ReplRequest } from './requests.ts';
