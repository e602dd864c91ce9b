/**
 * The Lean backend as the tools see it: `elaborate(env, job)` runs a header and a list
 * of commands on a warm session of that environment's pool and returns each command's
 * messages, already moved to content positions. Nothing outside backend/ knows a REPL
 * exists.
 */
import type { EnvironmentConfig } from '../envs/config.ts';
import type { Log } from '../log.ts';
import { buildLaunch, type LaunchSpec, type ProcessLimits } from './process/launch.ts';
import type { SandboxKind } from './process/sandbox.ts';
import { ReplError, ReplProcess } from './process/repl-process.ts';
import { toLeanMessage, type LeanMessage, type Origin } from './protocol/messages.ts';
import type { ReplSorry } from './protocol/schema.ts';
import { SessionPool, type PoolStats } from './pool/session-pool.ts';
import { chainKeys, rootKey } from './session/keys.ts';
import { LeanSession } from './session/session.ts';

export type { LeanMessage, Origin } from './protocol/messages.ts';
export { shiftPos } from './protocol/messages.ts';
export { canonicalHeader } from './session/keys.ts';

export interface BackendLimits {
  minWarm: number;
  maxSessions: number;
  maxUses: number;
  maxRssMb: number;
  sandbox: SandboxKind;
  limits: ProcessLimits;
  prefixEntries: number;
  startupTimeoutSeconds: number;
  rssPollMs: number;
}

export interface ElabCommand {
  text: string;
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
  constructor(readonly fault: string, message: string, readonly stderrTail: string) {
    super(message);
    this.name = 'LeanFailure';
  }
}

export interface LeanRunner {
  elaborate(env: EnvironmentConfig, job: ElabJob, ctx: { signal: AbortSignal; progress?: (done: number, total: number) => void }): Promise<ElabResult>;
}

export interface BackendOptions {
  limits: BackendLimits;
  log: Log;
  /** How to start a REPL for an environment (tests substitute the fake REPL's launch). */
  launch?: (env: EnvironmentConfig) => LaunchSpec;
}

export class LeanBackend implements LeanRunner {
  #pools = new Map<string, SessionPool>();
  #opts: BackendOptions;

  constructor(opts: BackendOptions) {
    this.#opts = opts;
  }

  /** The pool of an environment, created (and warmed) on first use. */
  pool(env: EnvironmentConfig): SessionPool {
    let p = this.#pools.get(env.name);
    if (!p) {
      const l = this.#opts.limits;
      const log = this.#opts.log.child({ env: env.name });
      const limits = effectiveLimits(l, env);
      const launch = this.#opts.launch ?? ((e: EnvironmentConfig) => buildLaunch(e, { limits, sandbox: e.sandbox ?? l.sandbox }));
      p = new SessionPool({
        name: env.name,
        minWarm: l.minWarm,
        maxSize: l.maxSessions,
        maxUses: l.maxUses,
        maxRssBytes: l.maxRssMb * 2 ** 20,
        log,
        maxCpuSeconds: limits.cpuSeconds,
        create: (signal) => LeanSession.open(
          { spawn: () => new ReplProcess({ launch: launch(env), log, maxRssBytes: l.maxRssMb * 2 ** 20, maxProcesses: limits.maxProcesses, rssPollMs: l.rssPollMs }), log, prefixEntries: l.prefixEntries },
          env.imports,
          AbortSignal.any([signal, AbortSignal.timeout(l.startupTimeoutSeconds * 1000)]),
        ),
      });
      this.#pools.set(env.name, p);
      p.start();
    }
    return p;
  }

  async elaborate(env: EnvironmentConfig, job: ElabJob, ctx: { signal: AbortSignal; progress?: (done: number, total: number) => void }): Promise<ElabResult> {
    const pool = this.pool(env);
    const root = rootKey(job.header);
    const keys = chainKeys(root, job.commands.map((c) => c.text));
    const session = await pool.acquire((s) => s.prefixLength(root, keys), ctx.signal);
    let healthy = false;
    try {
      const { root: r, outcomes } = await session.run(job.header, keys.map((key, i) => ({ key, text: job.commands[i]!.text })), {
        signal: ctx.signal,
        onCommand: (done, total) => ctx.progress?.(done, total),
      });
      healthy = true;
      const reused = outcomes.filter((o) => o.cached).length;
      return {
        headerMessages: r.messages.map((m) => toLeanMessage(m, { line: 1, column: 0 })),
        commands: outcomes.map((o, i) => {
          const origin = job.commands[i]!.origin;
          return { messages: o.messages.map((m) => toLeanMessage(m, origin)), sorries: o.sorries.map((s) => ({ ...s, origin })), cached: o.cached, ms: o.ms };
        }),
        session: session.id,
        reused,
        sent: outcomes.length - reused,
      };
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (e instanceof ReplError) throw new LeanFailure(e.fault, e.message, e.stderrTail);
      throw e;
    } finally {
      if (healthy) pool.release(session);
      else pool.destroy(session);
    }
  }

  stats(): Record<string, PoolStats> {
    return Object.fromEntries([...this.#pools].map(([name, p]) => [name, p.stats()]));
  }

  /** Drain: refuse new work, let busy sessions finish, kill the rest. */
  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
  }

  async destroy(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.destroyAll()));
  }
}

/** The limits for one environment: the global ones with its overrides. */
export function effectiveLimits(l: Pick<BackendLimits, 'limits'>, env: Pick<EnvironmentConfig, 'limits'>): ProcessLimits {
  return { ...l.limits, ...Object.fromEntries(Object.entries(env.limits ?? {}).filter(([, v]) => v !== undefined)) };
}
