/** The `search` section of the configuration: bounds of proof search sessions (docs/proof-search.md). */
import { z } from 'zod';

export const searchConfig = z
  .strictObject({
    /** Live states one caller (an API key, or an anonymous caller by address) may hold, all its connections together. */
    maxStatesPerCaller: z.number().int().positive().default(10_000),
    /**
     * Bytes one caller's states may hold in the daemon: each state's tactic and goals (a root's
     * share of its command), and a deleted state's for as long as a live descendant keeps it (its path).
     */
    maxStateBytesPerCaller: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    /** Live states the whole daemon may hold. */
    maxStates: z.number().int().positive().default(100_000),
    /** Bytes all states may hold in the daemon (as for maxStateBytesPerCaller). */
    maxStateBytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024 * 1024),
    /** Characters one tactic may have (a longer one is refused: `invalid_request`). */
    maxTacticChars: z.number().int().positive().default(16_384),
    /** Search messages holding a process at once, daemon-wide (more wait their turn): the rest of the pool stays for ordinary requests. */
    maxProcesses: z.number().int().positive().default(2),
    /** A state nobody used for this long dies (0: never). */
    stateTtlSeconds: z.number().nonnegative().default(600),
    /** Kill deadline of one tactic when the message names none. */
    tacticTimeoutSeconds: z.number().positive().default(60),
    /** Upper bound of a message's own `timeout_seconds`. */
    maxTimeoutSeconds: z.number().positive().default(900),
    /**
     * Tactics from the root a state may have. A state keeps its ancestors (its path, for replay)
     * alive after they are deleted, so this bounds what a live state holds.
     */
    maxDepth: z.number().int().positive().default(1000),
    /** Step results kept in the step cache. */
    cacheEntries: z.number().int().nonnegative().default(100_000),
  })
  .prefault({});

export type SearchConfig = z.output<typeof searchConfig>;
