/**
 * What a front and a worker say about a proof search's process (cluster pinning):
 * the front keeps the search (ids, caps, step cache, every state's path) and leases one REPL
 * process on one worker; the REPL requests of that lease travel to that worker over core NATS
 * request/reply (`<prefix>.search.<worker>`). Checked at the boundary like every cluster message.
 */
import { z } from 'zod';

export const searchRequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('open'), environment: z.string(), header: z.string() }),
  /** `sent`: the text with the Lean-side budget the front computed (`lines` it added on top), or the text itself. */
  z.object({ op: z.literal('command'), lease: z.string(), text: z.string(), sent: z.string(), lines: z.number() }),
  z.object({ op: z.literal('step'), lease: z.string(), tactic: z.string(), proofState: z.number().int() }),
  z.object({ op: z.literal('release'), lease: z.string(), states: z.number().int().nonnegative() }),
  z.object({ op: z.literal('destroy'), lease: z.string(), reason: z.string() }),
]);
export type SearchLeaseRequest = z.infer<typeof searchRequestSchema>;

const faults = ['crashed', 'garbage', 'aborted', 'memory', 'processes', 'closed'] as const;

export const searchReplySchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** open: the lease, its process and session. */
    lease: z.string().optional(),
    pid: z.number().optional(),
    sessionId: z.number().optional(),
    /** command: whether the session answered from memory; command and step: the REPL's answer (JSON). */
    cached: z.boolean().optional(),
    value: z.unknown().optional(),
    rssBytes: z.number().optional(),
  }),
  z.object({
    ok: z.literal(false),
    /** A REPL fault (the process is gone) or a service error (code and message). */
    fault: z.enum(faults).optional(),
    code: z.string().optional(),
    message: z.string(),
  }),
]);
export type SearchLeaseReply = z.infer<typeof searchReplySchema>;
