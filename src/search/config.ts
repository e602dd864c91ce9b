/** The `search` section of the configuration: bounds of proof search sessions (docs/proof-search.md). */
import { z } from 'zod';

export const searchConfig = z
  .strictObject({
    /** Live states one connection may hold. */
    maxStatesPerConnection: z.number().int().positive().default(10_000),
    /** Live states the whole daemon may hold. */
    maxStates: z.number().int().positive().default(100_000),
    /** Processes held by searches at once (the rest of the pool stays for ordinary requests). */
    maxProcesses: z.number().int().positive().default(2),
    /** A state nobody used for this long dies (0: never). */
    stateTtlSeconds: z.number().nonnegative().default(1800),
    /** Kill deadline of one tactic when the message names none. */
    tacticTimeoutSeconds: z.number().positive().default(60),
    /** Upper bound of a message's own `timeout_seconds`. */
    maxTimeoutSeconds: z.number().positive().default(900),
    /** A process whose states all died goes back to the pool below this many REPL states, and is recycled at or above. */
    recycleDeadStates: z.number().int().nonnegative().default(256),
    /**
     * A process that made this many REPL states, at least half of them dead, has its live states
     * replayed on a fresh one and is recycled (0: never). The REPL cannot free a state.
     */
    migrateReplStates: z.number().int().nonnegative().default(10_000),
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
