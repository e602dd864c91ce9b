/**
 * Proof search messages on `/v1/stream` (docs/proof-search.md): the client sends
 * `{id, tool: "goal.start" | "goal.tactic" | "goal.delete" | "goal.stat", request}` like any
 * stream request, and gets one `result` (or `error`) event for that id. State ids are opaque
 * strings the daemon hands out; they are never the REPL's proof state numbers.
 */
import { z } from 'zod';

export const SEARCH_TOOLS = ['goal.start', 'goal.tactic', 'goal.delete', 'goal.stat'] as const;
export type SearchTool = (typeof SEARCH_TOOLS)[number];

export const isSearchTool = (tool: string): tool is SearchTool => (SEARCH_TOOLS as readonly string[]).includes(tool);

const stateId = z.string().min(1).max(100);

export const goalStartRequest = z.strictObject({
  environment: z.string().min(1),
  /** Lean source. Without `theorem`, every `sorry` in it opens a state; with it, the theorem's statement does. */
  content: z.string().min(1),
  /** A declaration of `content` (by name, as written or fully qualified) whose statement is the one goal. */
  theorem: z.string().min(1).max(1000).optional(),
  /** As for the tools: true replaces the content's imports by the environment's header. */
  ignore_imports: z.boolean().default(true),
  timeout_seconds: z.number().positive().optional(),
});

export const goalTacticRequest = z.strictObject({
  state: stateId,
  /** Tried independently, each on `state`, in order: one result each. */
  /** Each at most `search.maxTacticChars` characters (the daemon's setting, checked there). */
  tactics: z.array(z.string().min(1)).min(1).max(64),
  /** Kill deadline of each tactic (default: the daemon's `search.tacticTimeoutSeconds`). */
  timeout_seconds: z.number().positive().optional(),
});

export const goalDeleteRequest = z.strictObject({ states: z.array(stateId).min(1).max(100_000) });

export const goalStatRequest = z.strictObject({});

export const SEARCH_REQUESTS = {
  'goal.start': goalStartRequest,
  'goal.tactic': goalTacticRequest,
  'goal.delete': goalDeleteRequest,
  'goal.stat': goalStatRequest,
} as const;

export type SearchRequest<T extends SearchTool> = z.output<(typeof SEARCH_REQUESTS)[T]>;

/** A Lean message of a step or start (positions as the REPL gives them: in the command or tactic text). */
export interface SearchMessage {
  severity: 'error' | 'warning' | 'info';
  pos: { line: number; column: number };
  endPos?: { line: number; column: number } | undefined;
  text: string;
}

export interface StateView {
  state: string;
  goals: string[];
}

/** A state that was rebuilt on a fresh process after its own died (same id, same goals). */
export interface StateLoss {
  state: string;
  reason: string;
}

export interface Recovery {
  /** States replayed on a fresh process after the old one was killed or crashed. */
  rebuilt: string[];
  /** States that could not be rebuilt: they are gone (deleted). */
  lost: StateLoss[];
}

export interface GoalStartResult extends Recovery {
  states: (StateView & { pos?: { line: number; column: number } | undefined })[];
  messages: SearchMessage[];
}

export type TacticOutcome =
  | {
      tactic: string;
      ok: true;
      state: string;
      goals: string[];
      messages: SearchMessage[];
      /** Goals of `sorry`s the tactic itself contains (they are not states). */
      sorries: string[];
      /** The REPL's verdict [repl v4.28.0: REPL/Main.lean, `getProofStatus`]; "Completed" only after its kernel check. */
      proofStatus: string;
      /** Answered from the step cache (same root, same path, same tactic). */
      cached: boolean;
    }
  | {
      tactic: string;
      ok: false;
      /**
       * `lean`: the REPL refused the tactic (its message); `heartbeats`: Lean stopped it at its heartbeat limit;
       * `timeout`: killed at the deadline; `crash`: its process died; `limit`: a state cap; `lost`: the state is gone.
       */
      kind: 'lean' | 'heartbeats' | 'timeout' | 'crash' | 'limit' | 'lost';
      error: string;
      cached: boolean;
    };

export interface GoalTacticResult extends Recovery {
  results: TacticOutcome[];
}

export interface GoalDeleteResult {
  deleted: number;
  /** Ids this connection does not hold (never did, or already gone). */
  unknown: string[];
}

export interface GoalStatResult {
  connection: { states: number };
  /** This caller's states, all its connections together (an API key, or an anonymous caller by address), and its caps. */
  caller: { states: number; maxStates: number; bytes: number; maxBytes: number };
  /** `processes`: search messages holding a process now (a search holds none between messages). */
  daemon: {
    states: number;
    maxStates: number;
    bytes: number;
    maxBytes: number;
    processes: number;
    maxProcesses: number;
  };
  processes: {
    pid: number;
    environment: string;
    liveStates: number;
    deadStates: number;
    rssMb: number;
  }[];
  cache: { entries: number; hits: number; misses: number };
}
