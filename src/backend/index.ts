/**
 * The Lean backend as the tools see it: `elaborate(env, job)` runs a header and a list
 * of commands on a warm session of that environment's pool and returns each command's
 * messages, already moved to content positions. Nothing outside backend/ knows a REPL
 * exists.
 */
import type { EnvironmentConfig } from '../envs/config.ts';
import { ServiceError, serviceError } from '../errors.ts';
import type { Log } from '../log.ts';
import { deadlineOf, markLeanRunning, sessionReady } from '../sync/signal-marks.ts';
import { HeartbeatBudgets } from './heartbeats/budgets.ts';
import { buildLaunch, type LaunchSpec, type ProcessLimits } from './process/launch.ts';
import type { SandboxKind } from './process/sandbox.ts';
import { ReplError, ReplProcess } from './process/repl-process.ts';
import { shiftPos, toLeanMessage, type LeanMessage, type Origin } from './protocol/messages.ts';
import type { TacticStep } from './protocol/infotree.ts';
import type { ReplMessage, ReplSorry } from './protocol/schema.ts';
import { CommentMemo, type MemoPlan } from './comment-memo.ts';
import { LoadedImports } from './loaded-imports.ts';
import { RunsInFlight, type RunInFlight } from './runs-in-flight.ts';
import { PoolAgent } from './pool/agent.ts';
import { leanPolicy, type Affinity } from './pool/lean-policy.ts';
import { Pool, type PoolStats, type SlotGate } from './pool/pool.ts';
import { WarmSession } from './pool/warm-session.ts';
import { canonicalHeaderOf, chainKey, rootKey, type CanonicalHeader } from './session/keys.ts';
import { deadlineSignal } from '../util/timeout-signal.ts';
import { noop } from '../util/arrays.ts';
import {
  LeanSession,
  StoppedError,
  type CommandOutcome,
  type RootOutcome,
  type RunOptions,
  type SessionCommand,
} from './session/session.ts';

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
  /** A header that only adds imports the environment's own header loaded runs on that header's processes (default true). */
  reuseLoadedImports?: boolean;
  /** Answers kept for jobs that differ only in comments (comment-memo.ts; default 4096; 0: none kept). */
  commentMemoEntries?: number;
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
  /**
   * Questions sent in the same REPL input, on the lines after `text`: one input instead of two. The REPL runs an
   * input's commands in turn and reports each message at its own line [repl v4.28.0: REPL/Frontend.lean,
   * `processInput` runs `IO.processCommands` over the whole input], so the answers on the tail's lines come back
   * apart (`ElabCommandResult.tail`), moved to `origin` here. The outcome is remembered under the key of the whole
   * input only: the environment after it is reused only by a request that sends the same input.
   */
  tail?: { text: string; origin: Origin };
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
  /** The messages on the tail's lines (ElabCommand.tail), on positions from its origin; present when it had one. */
  tail?: LeanMessage[];
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
  /**
   * Whether `elaborate` reports its session ready on the request's signal (src/sync/signal-marks.ts
   * sessionReady), so a deadline may count from then (Kimina's routes); a runner that does not
   * (a test double, a remote one) gets the plain deadline.
   */
  readonly reportsSessionReady?: boolean;
}

export type BackendOptions = {
  limits: BackendLimits;
  log: Log;
  /** The REPL's common command answer read by hand (config fastPaths.replAnswerByHand; default true); false: zod alone. */
  replAnswerByHand?: boolean;
} & (
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
  reuseLoadedImports: true,
  commentMemoEntries: 4096,
};

export class LeanBackend implements LeanRunner {
  readonly reportsSessionReady = true;
  #agent: PoolAgent<WarmSession, Affinity>;
  readonly #loaded = new LoadedImports();
  readonly #memo: CommentMemo | undefined;
  readonly #inFlight = new RunsInFlight();
  #opts: BackendOptions;
  #l: Required<BackendLimits>;
  #deadlines = new Map<string, DeadlineCounts>();

  constructor(opts: BackendOptions) {
    this.#opts = opts;
    const given = Object.fromEntries(Object.entries(opts.limits).filter(([, v]) => v !== undefined));
    this.#l = { ...DEFAULTS, ...given } as Required<BackendLimits>;
    this.#agent = new PoolAgent({ perEnv: this.#l.maxSessions, total: this.#l.maxProcesses });
    this.#memo = this.#l.commentMemoEntries > 0 ? new CommentMemo(this.#l.commentMemoEntries) : undefined;
  }

  /** The pool of an environment and header (default: the environment's own), created (and warmed) on first use. */
  pool(env: EnvironmentConfig, header: string = env.imports): Pool<WarmSession, Affinity> {
    const canonical = canonicalHeaderOf(header).text;
    // Looked up first: every miss asks for its pool, and only a new one needs its factory.
    return this.#agent.find(env.name, canonical) ?? this.#newPool(env, canonical);
  }

  #newPool(env: EnvironmentConfig, canonical: string): Pool<WarmSession, Affinity> {
    const own = canonical === canonicalHeaderOf(env.imports).text;
    return this.#agent.pool(env.name, canonical, (gate) => this.#makePool(env, canonical, own, gate), own);
  }

  #makePool(env: EnvironmentConfig, canonical: string, own: boolean, gate: SlotGate): Pool<WarmSession, Affinity> {
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
      // Only the environment's own header decides its availability (a request's own header that fails concerns its requests only).
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
                answerByHand: opts.replAnswerByHand !== false,
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
  }

  elaborate(env: EnvironmentConfig, job: ElabJob, ctx: ElabContext): Promise<ElabResult> {
    const plan = this.#memo?.plan(env.name, job);
    if (!plan) return this.#elaborate(env, job, ctx);
    const memo = this.#memo!;
    const known = memo.answer(plan, job);
    if (known) {
      ctx.progress?.(job.commands.length, job.commands.length);
      return Promise.resolve(known);
    }
    const running = this.#inFlight.find(plan.key);
    return running ? this.#follow(running, env, job, ctx) : this.#lead(memo, plan, env, job, ctx);
  }

  /** The job runs, and equal jobs asked meanwhile wait for it (runs-in-flight.ts); its answer remembered before they go on. */
  async #lead(memo: CommentMemo, plan: MemoPlan, env: EnvironmentConfig, job: ElabJob, ctx: ElabContext) {
    const run = this.#inFlight.start(plan.key);
    try {
      const r = await this.#elaborate(env, job, { signal: ctx.signal, progress: ctx.progress, run });
      memo.remember(plan, job, r);
      return r;
    } finally {
      this.#inFlight.end(plan.key, run);
    }
  }

  /** An equal job is running (runs-in-flight.ts): its end awaited, then this job asked again (the memo answers it, or it runs). */
  async #follow(run: RunInFlight, env: EnvironmentConfig, job: ElabJob, ctx: ElabContext): Promise<ElabResult> {
    ctx.signal.throwIfAborted();
    this.#inFlight.waited++;
    await run.wait(ctx.signal);
    return this.elaborate(env, job, ctx);
  }

  /** The comment memo's answers held and given (comment-memo.ts), and jobs that waited for an equal one in flight; zeros when it is off. */
  commentMemoStats(): { entries: number; hits: number; waited: number } {
    const held = this.#memo?.stats() ?? { entries: 0, hits: 0 };
    return { ...held, waited: this.#inFlight.waited };
  }

  #elaborate(env: EnvironmentConfig, job: ElabJob, ctx: RunContext): Promise<ElabResult> {
    // The environment's own header (every miss of the bench) goes straight on: no promise of its own.
    if (!this.#l.reuseLoadedImports || job.header === env.imports) return this.#elaborateOn(env, job, job.header, ctx);
    const ask = (texts: string[], signal: AbortSignal) => this.#ask(env, texts, signal);
    return this.#loaded
      .served(env.name, env.imports, job.header, ask, ctx.signal)
      .then((served) => this.#elaborateOn(env, job, served, ctx));
  }

  /** Each text as one command on a process of the environment's own header, in that header's environment: their messages. */
  async #ask(
    env: EnvironmentConfig,
    texts: string[],
    signal: AbortSignal,
  ): Promise<{ severity: string; data: string }[][]> {
    const job = { header: env.imports, commands: texts.map((text) => ({ text, origin: { line: 1, column: 0 } })) };
    const r = await this.#elaborateOn(env, job, env.imports, { signal });
    return r.commands.map((c) => c.messages.map((m) => ({ severity: m.severity, data: m.text })));
  }

  /** `job` on the processes of header `served` (the job's own, or the environment's own: LoadedImports), its header's messages placed in the job's. */
  async #elaborateOn(env: EnvironmentConfig, job: ElabJob, served: string, ctx: RunContext): Promise<ElabResult> {
    const header = canonicalHeaderOf(served);
    const pool = this.pool(env, served);
    const root = rootKey(header.text);
    const keys = commandKeys(root, job.commands);
    const ws = await pool.acquire((s) => s.session.prefixLength(root, keys), ctx.signal);
    if (ws.header !== header.text) refuse(pool, ws, header.text);
    // Its header imported: a deadline that counts from here (Kimina's routes) starts now, before the budgets read it.
    sessionReady(ctx.signal);
    ctx.run?.ready();
    const run = new RequestRun(ws, ctx, this.#budgets(job.commands, deadlineOf(ctx.signal)), this.#graceMs);
    const leanDone = markLeanRunning(ctx.signal);
    try {
      const { root: r, outcomes } = await this.#run(env.name, pool, run, header.text, sessionCommands(job, keys));
      const stops = run.budgets?.stops ?? 0;
      if (stops > 0) throw this.#stoppedAtBudget(env.name, ws, stops);
      return elabResult(r, outcomes, job, served === job.header ? header : canonicalHeaderOf(job.header), ws.id);
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (e instanceof ServiceError) throw e;
      if (e instanceof ReplError) throw new LeanFailure(e.fault, e.message, e.stderrTail);
      throw e;
    } finally {
      leanDone();
    }
  }

  /**
   * Runs the commands on the run's session, which goes back to the pool when Lean is done with
   * it: that may be after this request has been answered. The promise settles with the work, or
   * rejects once the request's signal aborts (its deadline, or the client gone); Lean then has
   * the grace period to answer before its process is killed. One listener on the signal does both.
   */
  #run(
    env: string,
    pool: Pool<WarmSession, Affinity>,
    run: RequestRun,
    header: string,
    commands: readonly SessionCommand[],
  ): Promise<SessionRun> {
    return new Promise<SessionRun>((resolve, reject) => {
      run.reject = reject;
      run.ws.session.run(header, commands, run).then(
        (v) => {
          this.#settled(env, pool, run, undefined);
          resolve(v);
        },
        (e: unknown) => {
          this.#settled(env, pool, run, e);
          reject(e);
        },
      );
      run.arm();
    });
  }

  /** Lean is done with the run's session (answered, stopped or failed): the grace disarmed, the session handed back, a deadline counted. */
  #settled(env: string, pool: Pool<WarmSession, Affinity>, run: RequestRun, error: unknown): void {
    run.disarm();
    this.#handBack(env, pool, run.ws, error, run.killed);
    if (run.stop.aborted) this.#countDeadline(env, run.ws, run.killed);
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
    return serviceError('lean_timeout', 'heartbeat_budget');
  }

  /** The request's heartbeat budgets (heartbeats/budgets.ts), when its signal has a deadline and budgets are on. */
  #budgets(commands: readonly ElabCommand[], deadline: number | undefined): HeartbeatBudgets | undefined {
    const perSecond = this.#l.heartbeatsPerSecond;
    return deadline === undefined || perSecond <= 0 ? undefined : new HeartbeatBudgets(commands, deadline, perSecond);
  }

  get #graceMs(): number {
    return this.#l.killGraceSeconds * 1000;
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

type ElabContext = Parameters<LeanRunner['elaborate']>[2];
/** A run's context: `run` is told when its session is ready (runs-in-flight.ts: the jobs waiting for it count from then). */
type RunContext = ElabContext & { run?: RunInFlight };

/**
 * A request's run on a session, all it needs per request in one object (no closure per request;
 * docs/hot-paths.md): the session's options (`stop`, and `prepare`/`remember` from its heartbeat
 * budgets, `onCommand` for its progress and the session's state count) and its watch over the
 * request's signal. The signal aborting (its deadline, or the client gone) rejects the answer at
 * once and arms the grace: Lean gets `graceMs` more to answer, then its process is killed (a REPL
 * cannot be interrupted mid-command). Disarmed when the work settles. The object itself is the
 * signal's listener (`handleEvent`).
 */
class RequestRun implements RunOptions {
  killed = false;
  /** The answer's rejection (`#run` sets it: the promise is made after this object). */
  reject: (reason: unknown) => void = noop;
  readonly stop: AbortSignal;
  #timer: NodeJS.Timeout | undefined = undefined;

  constructor(
    readonly ws: WarmSession,
    private readonly ctx: ElabContext,
    readonly budgets: HeartbeatBudgets | undefined,
    private readonly graceMs: number,
  ) {
    this.stop = ctx.signal;
  }

  prepare(text: string, i: number): { text: string; lines: number } | undefined {
    return this.budgets?.prepare(text, i);
  }

  remember(messages: readonly ReplMessage[], sentText: string): boolean {
    return this.budgets?.remember(messages, sentText) ?? true;
  }

  onCommand(done: number, total: number, cached: boolean): void {
    if (!cached) this.ws.states++;
    this.ctx.progress?.(done, total);
  }

  arm(): void {
    if (this.stop.aborted) this.handleEvent();
    else this.stop.addEventListener('abort', this, { once: true });
  }

  handleEvent(): void {
    this.reject(this.stop.reason);
    this.#timer ??= setTimeout(() => {
      this.killed = true;
      this.ws.session.interrupt('Lean did not stop within the grace period after the deadline');
    }, this.graceMs);
  }

  disarm(): void {
    clearTimeout(this.#timer);
    this.stop.removeEventListener('abort', this);
  }
}

/** The session's commands: each with its chain key, in one shape. */
function sessionCommands(job: ElabJob, keys: readonly string[]): SessionCommand[] {
  const out = new Array<SessionCommand>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const c = job.commands[i]!;
    out[i] = { key: keys[i]!, text: sentText(c), infotree: c.infotree };
  }
  return out;
}

/** The REPL input of a command: its text, and its tail on the lines after it. */
const sentText = (c: ElabCommand): string => (c.tail ? `${c.text}\n${c.tail.text}` : c.text);

/** A job's chain keys; a command asked with its info tree has an outcome of its own (never remembered; session.ts). */
function commandKeys(root: string, commands: readonly ElabCommand[]): string[] {
  // Sized at once, as are the lists below (a first push allocates room for 17).
  const out = new Array<string>(commands.length);
  let prev = root;
  for (let i = 0; i < commands.length; i++) {
    const c = commands[i]!;
    out[i] = prev = chainKey(prev, c.infotree ? `${sentText(c)}\u0000infotree` : sentText(c));
  }
  return out;
}

/** A session of another header: cannot happen (a pool is per header); refused rather than import a second header into a process. */
function refuse(pool: Pool<WarmSession, Affinity>, ws: WarmSession, header: string): never {
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
  let reused = 0;
  for (const o of outcomes) if (o.cached) reused++;
  return {
    headerMessages: root.messages.map((m) => headerMessage(m, header)),
    commands: outcomes.map((o, i) => commandResult(o, job.commands[i]!)),
    session,
    reused,
    sent: outcomes.length - reused,
  };
}

/** A command's outcome on content positions; built field by field (a conditional spread takes V8's slow define path per command). */
function commandResult(o: CommandOutcome, c: ElabCommand): ElabCommandResult {
  const origin = c.origin;
  if (c.tail) return withTail(o, c, c.tail);
  const r: ElabCommandResult = {
    messages: o.messages.map((m) => toLeanMessage(m, origin)),
    sorries: o.sorries.map((s) => ({ ...s, origin })),
    cached: o.cached,
    ms: o.ms,
  };
  if (o.tactics)
    r.tactics = o.tactics.map((x) => ({
      ...x,
      pos: shiftPos(x.pos, origin),
      endPos: shiftPos(x.endPos, origin),
    }));
  return r;
}

/**
 * The outcome of a command sent with a tail: what lies on the text's own lines is the command's, on content positions
 * from its origin; the rest is the tail's, moved up by the text's lines and on positions from the tail's origin.
 */
function withTail(o: CommandOutcome, c: ElabCommand, tail: NonNullable<ElabCommand['tail']>): ElabCommandResult {
  const lines = lineCount(c.text);
  const own = (p: { line: number }) => p.line <= lines;
  const r = commandResult({ ...o, messages: o.messages.filter((m) => own(m.pos)) }, { text: c.text, origin: c.origin });
  r.sorries = r.sorries.filter((s) => s.pos === undefined || own(s.pos));
  if (r.tactics) r.tactics = r.tactics.filter((x) => x.pos.line < c.origin.line + lines);
  r.tail = o.messages.filter((m) => !own(m.pos)).map((m) => toLeanMessage(movedUp(m, lines), tail.origin));
  return r;
}

const lineCount = (text: string): number => {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/** A message `lines` lines higher (on the tail's own lines). */
function movedUp(m: ReplMessage, lines: number): ReplMessage {
  const up = (p: { line: number; column: number }) => ({ line: p.line - lines, column: p.column });
  return { ...m, pos: up(m.pos), endPos: m.endPos ? up(m.endPos) : m.endPos };
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
