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

/** Classify and parse one decoded response; throws a ZodError if it fits no shape. */
export function parseResponse(json: unknown): ReplResponse {
  if (json && typeof json === 'object') {
    if ('proofState' in json && 'goals' in json) return { type: 'proofStep', value: proofStepResponse.parse(json) };
    if ('env' in json) return { type: 'command', value: commandResponse.parse(json) };
    if ('message' in json) return { type: 'error', value: errorResponse.parse(json) };
  }
  // Let zod say what is wrong with it.
  return { type: 'command', value: commandResponse.parse(json) };
}

/** The request shapes we send live in requests.ts (one typed request type). */
export type { CommandRequest, ProofStepRequest, ReplRequest } from './requests.ts';
