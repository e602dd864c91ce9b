/**
 * The Lean backend as the tools see it: `elaborate(env, job)` runs a header and a list
 * of commands on a warm session of that environment's pool and returns each command's
 * messages, already moved to content positions. Nothing outside backend/ knows a REPL
 * exists.
 */
import type { EnvironmentConfig } from '../envs/config.ts';
import { ServiceError, serviceError } from '../errors.ts';
import type { Log } from '../log.ts';
import { deadlineOf } from '../sync/deadline.ts';
import {
  heartbeatBudget,
  scopeLimits,
  sentBudget,
  stoppedByBudget,
  withBudget,
  budgetable,
  WRAP_LINES,
} from './deadline/heartbeats.ts';
import { buildLaunch, type LaunchSpec, type ProcessLimits } from './process/launch.ts';
import type { SandboxKind } from './process/sandbox.ts';
import { ReplError, ReplProcess } from './process/repl-process.ts';
import { shiftPos, toLeanMessage, type LeanMessage, type Origin } from './protocol/messages.ts';
import type { TacticStep } from './protocol/infotree.ts';
import type { ReplMessage, ReplSorry } from './protocol/schema.ts';
import { PoolAgent } from './pool/agent.ts';
import { leanPolicy, type Affinity } from './pool/lean-policy.ts';
import { Pool, type PoolStats } from './pool/pool.ts';
import { WarmSession } from './pool/warm-session.ts';
import { canonicalHeaderOf, chainKeys, rootKey, type CanonicalHeader } from './session/keys.ts';
import { deadlineSignal } from '../util/deadline-signal.ts';
import { LeanSession, StoppedError, type CommandOutcome, type RootOutcome } from './session/session.ts';

export type { LeanMessage, Origin } from './protocol/messages.ts';
export type { TacticStep } from './protocol/infotree.ts';
export { shiftPos } from './protocol/messages.ts';
export { canonicalHeader } from './session/keys.ts';

export interface BackendLimits {
  /** Sessions kept warm for each environment's own header. */
  minWarm: number;
  /** Processes per environment, all headers together. */
  maxSessions: number;
  /** Processes in the daemon, all environments together (default: 4). */
  maxProcesses?: number;
  maxUses: number;
  /** The hard cap (MiB): the watchdog kills a process above it, even mid-request. */
  maxRssMb: number;
  /** The soft threshold, in percent of the hard cap: above it a session retires between requests (default 70). */
  softRssPercent?: number;
  /** Retire after this many REPL states (commands sent since spawn; the REPL never frees them). Default 10000. */
  maxStates?: number;
  /** Retire idle sessions above minWarm after this long (default 900 s; 0: never). */
  idleSeconds?: number;
  /** Heartbeats (maxHeartbeats units, thousands) one second of the deadline buys (default 20000; 0: no Lean-side budget). */
  heartbeatsPerSecond?: number;
  /** After the deadline, how long Lean may take to stop a command before its process is killed (default 5 s). */
  killGraceSeconds?: number;
  sandbox: SandboxKind;
  limits: ProcessLimits;
  prefixEntries: number;
  startupTimeoutSeconds: number;
  rssPollMs: number;
}

export interface ElabCommand {
  text: string;
  /** Ask for the command's tactic steps (the REPL's info tree of original tactic nodes). */
  infotree?: boolean;
  /** Where the text starts in the content the response returns (messages are moved there). */
  origin: Origin;
}

export interface ElabJob {
  /** The header to elaborate first (the environment's imports, or the content's own). */
  header: string;
  commands: ElabCommand[];
}

export interface ElabCommandResult {
  messages: LeanMessage[];
  sorries: (ReplSorry & { origin: Origin })[];
  /** Its tactic steps on content positions, when asked for (ElabCommand.infotree). */
  tactics?: TacticStep[];
  cached: boolean;
  ms: number;
}

export interface ElabResult {
  headerMessages: LeanMessage[];
  commands: ElabCommandResult[];
  session: number;
  /** Commands answered from the session's memory (shared prefix), not sent to Lean. */
  reused: number;
  sent: number;
}

/** Lean itself failed (crash, memory, garbage): not a request error, a finding tools report. */
export class LeanFailure extends Error {
  constructor(
    readonly fault: string,
    message: string,
    readonly stderrTail: string,
  ) {
    super(message);
    this.name = 'LeanFailure';
  }
}

export interface LeanRunner {
  elaborate(
    env: EnvironmentConfig,
    job: ElabJob,
    ctx: { signal: AbortSignal; progress?: (done: number, total: number) => void },
  ): Promise<ElabResult>;
}

export type BackendOptions = { limits: BackendLimits; log: Log } & (
  | {
      /** How to start a REPL for an environment (tests substitute the fake REPL's launch). */
      launch: (env: EnvironmentConfig) => LaunchSpec;
    }
  | {
      /** The daemon's environment, which the REPL's own is taken from (`childEnv`: PATH, HOME, ELAN_HOME…). */
      hostEnv: NodeJS.ProcessEnv;
    }
);

/** What happened at deadlines: Lean stopped a command itself (heartbeats), answered within the grace, or was killed. */
export interface DeadlineCounts {
  heartbeatStops: number;
  answeredInGrace: number;
  killedAfterGrace: number;
}

/** An environment's totals: the per-key pools' counters summed, plus what only the environment knows. */
export interface EnvPoolStats extends Pick<
  PoolStats,
  'warm' | 'busy' | 'starting' | 'retiring' | 'waiting' | 'created' | 'retired' | 'failedStarts'
> {
  processes: number;
  /** The same as `warm` (older name). */
  idle: number;
  deadlines: DeadlineCounts;
  /** Per canonical header: each process imported exactly one. */
  headers: Record<string, PoolStats>;
}

const DEFAULTS = {
  maxProcesses: 4,
  softRssPercent: 70,
  maxStates: 10_000,
  idleSeconds: 900,
  heartbeatsPerSecond: 20_000,
  killGraceSeconds: 5,
};

export class LeanBackend implements LeanRunner {
  #agent: PoolAgent<WarmSession, Affinity>;
  #opts: BackendOptions;
  #l: Required<BackendLimits>;
  #deadlines = new Map<string, DeadlineCounts>();

  constructor(opts: BackendOptions) {
    this.#opts = opts;
    const given = Object.fromEntries(Object.entries(opts.limits).filter(([, v]) => v !== undefined));
    this.#l = { ...DEFAULTS, ...given } as Required<BackendLimits>;
    this.#agent = new PoolAgent({ perEnv: this.#l.maxSessions, total: this.#l.maxProcesses });
  }

  /** The pool of an environment and header (default: the environment's own), created (and warmed) on first use. */
  pool(env: EnvironmentConfig, header: string = env.imports): Pool<WarmSession, Affinity> {
    const canonical = canonicalHeaderOf(header).text;
    const own = canonical === canonicalHeaderOf(env.imports).text;
    return this.#agent.pool(
      env.name,
      canonical,
      (gate) => {
        const l = this.#l;
        const log = this.#opts.log.child({ env: env.name });
        const limits = effectiveLimits(l, env);
        const opts = this.#opts;
        const launch =
          'launch' in opts
            ? opts.launch
            : (e: EnvironmentConfig) => buildLaunch(e, { limits, sandbox: e.sandbox ?? l.sandbox }, opts.hostEnv);
        const hardRss = l.maxRssMb * 2 ** 20;
        return new Pool<WarmSession, Affinity>({
          name: own ? env.name : `${env.name} [${canonical.replace(/\n/g, '; ') || 'no imports'}]`,
          // Only the environment's own header is kept warm; other headers' pools start on demand and idle out.
          minWarm: own ? l.minWarm : 0,
          maxSize: l.maxSessions,
          idleMs: l.idleSeconds * 1000,
          log,
          gate,
          // Only the environment's own header decides its availability (issue 27, defect 1).
          decidesAvailability: own,
          policy: leanPolicy({
            softRssBytes: (hardRss * l.softRssPercent) / 100,
            maxUses: l.maxUses,
            maxStates: l.maxStates,
            maxCpuSeconds: limits.cpuSeconds > 0 ? 0.8 * limits.cpuSeconds : 0,
          }),
          spawn: async (signal) => {
            const startup = deadlineSignal(signal, l.startupTimeoutSeconds * 1000);
            const session = await LeanSession.open(
              {
                spawn: () =>
                  new ReplProcess({
                    launch: launch(env),
                    log,
                    maxRssBytes: hardRss,
                    maxProcesses: limits.maxProcesses,
                    rssPollMs: l.rssPollMs,
                  }),
                log,
                prefixEntries: l.prefixEntries,
              },
              canonical,
              startup.signal,
              own,
            ).finally(() => startup.clear());
            return new WarmSession(session, canonical);
          },
        });
      },
      own,
    );
  }

  async elaborate(
    env: EnvironmentConfig,
    job: ElabJob,
    ctx: { signal: AbortSignal; progress?: (done: number, total: number) => void },
  ): Promise<ElabResult> {
    const header = canonicalHeaderOf(job.header);
    const pool = this.pool(env, job.header);
    const root = rootKey(header.text);
    const keys = commandKeys(root, job.commands);
    const ws = await acquireFor(pool, header.text, root, keys, ctx.signal);
    const budget = this.#budgeter(
      job.commands.map((c) => c.text),
      deadlineOf(ctx.signal),
    );
    try {
      const { root: r, outcomes } = await this.#run(
        env.name,
        pool,
        ws,
        { header: header.text, job, keys, budget },
        ctx,
      );
      if (budget.stops() > 0) throw this.#stoppedAtBudget(env.name, ws, budget.stops());
      return elabResult(r, outcomes, job, header, ws.id);
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (e instanceof ServiceError) throw e;
      if (e instanceof ReplError) throw new LeanFailure(e.fault, e.message, e.stderrTail);
      throw e;
    }
  }

  /**
   * Runs the commands on `ws`, which goes back to the pool when Lean is done with it: that may
   * be after this request has been answered. The promise settles with the work, or rejects
   * once the request's signal aborts (its deadline, or the client gone); Lean then has the
   * grace period to answer before its process is killed. One listener on the signal does both.
   */
  #run(
    env: string,
    pool: Pool<WarmSession, Affinity>,
    ws: WarmSession,
    run: { header: string; job: ElabJob; keys: readonly string[]; budget: Budget },
    ctx: { signal: AbortSignal; progress?: (done: number, total: number) => void },
  ): Promise<SessionRun> {
    return new Promise<SessionRun>((resolve, reject) => {
      const grace = new Grace(ctx.signal, reject, ws.session, this.#l.killGraceSeconds * 1000);
      const commands = run.keys.map((key, i) => ({
        key,
        text: run.job.commands[i]!.text,
        infotree: run.job.commands[i]!.infotree,
      }));
      ws.session
        .run(run.header, commands, {
          stop: ctx.signal,
          ...run.budget,
          onCommand(done, total, cached) {
            if (!cached) ws.states++;
            ctx.progress?.(done, total);
          },
        })
        .then(
          (v) => {
            this.#settled(env, pool, ws, grace, undefined);
            resolve(v);
          },
          (e: unknown) => {
            this.#settled(env, pool, ws, grace, e);
            reject(e);
          },
        );
      grace.arm();
    });
  }

  /** Lean is done with `ws` (answered, stopped or failed): the grace disarmed, the session handed back, a deadline counted. */
  #settled(env: string, pool: Pool<WarmSession, Affinity>, ws: WarmSession, grace: Grace, error: unknown): void {
    grace.disarm();
    this.#handBack(env, pool, ws, error, grace.killed);
    if (grace.signal.aborted) this.#countDeadline(env, ws, grace.killed);
  }

  /** After the work: the session back to the pool, or destroyed when a fault (or the grace kill) broke it. */
  #handBack(env: string, pool: Pool<WarmSession, Affinity>, ws: WarmSession, error: unknown, killed: boolean): void {
    if (error === undefined || error instanceof StoppedError) return pool.release(ws);
    pool.destroy(
      ws,
      killed
        ? 'deadline: killed after the grace period'
        : error instanceof ReplError
          ? `fault: ${error.fault}`
          : 'fault',
    );
  }

  /** A request whose deadline passed while Lean worked: whether Lean answered within the grace or was killed. */
  #countDeadline(env: string, ws: WarmSession, killed: boolean): void {
    const counts = this.#deadlineCounts(env);
    if (killed) {
      counts.killedAfterGrace++;
      this.#opts.log.warn(
        { env, session: ws.id },
        'deadline: Lean did not answer within the grace period; process killed',
      );
    } else {
      counts.answeredInGrace++;
      this.#opts.log.info({ env, session: ws.id }, 'deadline: Lean answered within the grace period; session kept');
    }
  }

  /**
   * Lean stopped a command at the budget this request's deadline bought: that is the
   * deadline, not a verdict on the proof (a real run has the full limit), so it is answered
   * as a timeout and never cached; the session lives on.
   */
  #stoppedAtBudget(env: string, ws: WarmSession, stops: number): ServiceError {
    this.#deadlineCounts(env).heartbeatStops += stops;
    this.#opts.log.info(
      { env, session: ws.id },
      'deadline: Lean stopped the command at its heartbeat budget; session kept',
    );
    return serviceError('timeout', 'heartbeat_budget');
  }

  /**
   * Heartbeat budgets for a request's commands: each wrappable command is sent with what
   * the time left until `deadline` buys, never above the limit a real run would have at
   * that point of the file (Lean's default, or the file's own `set_option maxHeartbeats`).
   */
  #budgeter(texts: readonly string[], deadline: number | undefined): Budget {
    let stops = 0;
    const perSecond = this.#l.heartbeatsPerSecond;
    // Methods, not arrow properties: no name to define per request in the keepNames build.
    if (deadline === undefined || perSecond <= 0)
      return {
        stops() {
          return stops;
        },
      };
    const scopes = scopeLimits(texts);
    return {
      stops() {
        return stops;
      },
      prepare(text: string, i: number) {
        if (!budgetable(text)) return { text, lines: 0 };
        const n = heartbeatBudget(deadline - Date.now(), perSecond, scopes[i]!);
        // At the limit in scope the budget changes nothing a real run would do: send the text as is.
        return n === scopes[i] ? { text, lines: 0 } : { text: withBudget(text, n), lines: WRAP_LINES };
      },
      // An outcome cut short by this request's deadline is not a fact about the command: never reuse it.
      remember(messages: readonly ReplMessage[], sent: string) {
        const b = sentBudget(sent);
        if (b === undefined || !messages.some((m) => m.severity === 'error' && stoppedByBudget(m.data, b))) return true;
        stops++;
        return false;
      },
    };
  }

  #deadlineCounts(env: string): DeadlineCounts {
    let c = this.#deadlines.get(env);
    if (!c) this.#deadlines.set(env, (c = { heartbeatStops: 0, answeredInGrace: 0, killedAfterGrace: 0 }));
    return c;
  }

  /** Per environment: totals, deadline outcomes, and each header's pool. */
  stats(): Record<string, EnvPoolStats> {
    const out: Record<string, EnvPoolStats> = {};
    for (const [env, headers] of Object.entries(this.#agent.stats())) {
      const sum = (f: (p: PoolStats) => number) => Object.values(headers).reduce((a, p) => a + f(p), 0);
      const warm = sum((p) => p.warm);
      out[env] = {
        processes: this.#agent.processes(env),
        warm,
        idle: warm,
        busy: sum((p) => p.busy),
        starting: sum((p) => p.starting),
        retiring: sum((p) => p.retiring),
        waiting: sum((p) => p.waiting),
        created: sum((p) => p.created),
        retired: sum((p) => p.retired),
        failedStarts: sum((p) => p.failedStarts),
        deadlines: { ...this.#deadlineCounts(env) },
        headers,
      };
    }
    return out;
  }

  /** Processes in the daemon (all environments and headers). */
  processes(): number {
    return this.#agent.processes();
  }

  /** Drain: refuse new work, let queued and busy requests finish, then end every session. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  async destroy(): Promise<void> {
    await this.#agent.destroy();
  }
}

type SessionRun = Awaited<ReturnType<LeanSession['run']>>;

/** A request's heartbeat budgets (`#budgeter`): how the session rewrites and remembers each command, and how many Lean stopped. */
interface Budget {
  stops: () => number;
  prepare?: (text: string, index: number) => { text: string; lines: number };
  remember?: (messages: readonly ReplMessage[], sentText: string) => boolean;
}

/**
 * A request's watch over its run: the request's signal aborting (its deadline, or the client
 * gone) rejects the answer at once and arms the grace: Lean gets `graceMs` more to answer,
 * then its process is killed (a REPL cannot be interrupted mid-command). Disarmed when the
 * work settles. The object itself is the signal's listener (`handleEvent`): no closure per
 * request (a named one costs a defineProperty for its name in the keepNames build).
 */
class Grace {
  killed = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly signal: AbortSignal,
    private readonly reject: (reason: unknown) => void,
    private readonly session: LeanSession,
    private readonly graceMs: number,
  ) {}

  arm(): void {
    if (this.signal.aborted) this.handleEvent();
    else this.signal.addEventListener('abort', this, { once: true });
  }

  handleEvent(): void {
    this.reject(this.signal.reason);
    this.#timer ??= setTimeout(() => {
      this.killed = true;
      this.session.interrupt('Lean did not stop within the grace period after the deadline');
    }, this.graceMs);
  }

  disarm(): void {
    clearTimeout(this.#timer);
    this.signal.removeEventListener('abort', this);
  }
}

/** A job's chain keys; a command asked with its info tree has an outcome of its own (never remembered; session.ts). */
function commandKeys(root: string, commands: readonly ElabCommand[]): string[] {
  return chainKeys(
    root,
    commands.map((c) => (c.infotree ? `${c.text}\u0000infotree` : c.text)),
  );
}

/** The idle session holding the longest prefix of `keys` (or a new one). */
async function acquireFor(
  pool: Pool<WarmSession, Affinity>,
  header: string,
  root: string,
  keys: readonly string[],
  signal: AbortSignal,
): Promise<WarmSession> {
  const ws = await pool.acquire((s) => s.session.prefixLength(root, keys), signal);
  if (ws.header === header) return ws;
  // Cannot happen (a pool is per header); refuse rather than import a second header into a process.
  pool.release(ws);
  throw new Error(
    `internal: a session of header ${JSON.stringify(ws.header)} was handed a request of header ${JSON.stringify(header)}`,
  );
}

/** The session's outcomes, moved to the content's positions. */
function elabResult(
  root: RootOutcome,
  outcomes: readonly CommandOutcome[],
  job: ElabJob,
  header: CanonicalHeader,
  session: number,
): ElabResult {
  const reused = outcomes.filter((o) => o.cached).length;
  return {
    headerMessages: root.messages.map((m) => headerMessage(m, header)),
    commands: outcomes.map((o, i) => commandResult(o, job.commands[i]!.origin)),
    session,
    reused,
    sent: outcomes.length - reused,
  };
}

function commandResult(o: CommandOutcome, origin: Origin): ElabCommandResult {
  return {
    messages: o.messages.map((m) => toLeanMessage(m, origin)),
    sorries: o.sorries.map((s) => ({ ...s, origin })),
    ...(o.tactics
      ? {
          tactics: o.tactics.map((x) => ({
            ...x,
            pos: shiftPos(x.pos, origin),
            endPos: shiftPos(x.endPos, origin),
          })),
        }
      : {}),
    cached: o.cached,
    ms: o.ms,
  };
}

/** A header message: its line is a statement of the canonical header; put it where that statement is in the raw one. */
function headerMessage(m: ReplMessage, h: CanonicalHeader): LeanMessage {
  const at = (p: { line: number; column: number }) => {
    const o = h.origins[p.line - 1];
    return o ? { line: o.line, column: o.column + p.column } : { line: 1, column: 0 };
  };
  return { ...toLeanMessage(m, { line: 1, column: 0 }), pos: at(m.pos), endPos: m.endPos ? at(m.endPos) : undefined };
}

/** The limits for one environment: the global ones with its overrides. */
export function effectiveLimits(
  l: Pick<BackendLimits, 'limits'>,
  env: Pick<EnvironmentConfig, 'limits'>,
): ProcessLimits {
  return { ...l.limits, ...Object.fromEntries(Object.entries(env.limits ?? {}).filter(([, v]) => v !== undefined)) };
}
