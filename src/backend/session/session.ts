/**
 * A warm session: one REPL process, its header elaborated once (the base env), and a
 * bounded memory of `key → outcome` for commands it already elaborated, so a request that
 * shares a prefix with an earlier one only sends the commands that differ.
 */
import type { Log } from '../../log.ts';
import type { ReplMessage, ReplResponse, ReplSorry } from '../protocol/schema.ts';
import { commandRequest, proofStepRequest } from '../protocol/requests.ts';
import { tacticSteps, type TacticStep } from '../protocol/infotree.ts';
import { ReplError, type ReplProcess } from '../process/repl-process.ts';
import { probedHeader, readHeaderProbe } from './header-probe.ts';
import { rootKey } from './keys.ts';
import { noop } from '../../util/arrays.ts';
import { RecentMap } from '../../util/recent-map.ts';

/** The request stopped between commands (its deadline passed): the session is intact. */
export class StoppedError extends Error {
  constructor(readonly reason: unknown) {
    super('stopped between commands');
    this.name = 'StoppedError';
  }
}

/** Positions of a command that was sent with `lines` extra lines on top, back on the command's own lines. */
function unshift<
  T extends {
    pos?: { line: number; column: number } | undefined;
    endPos?: { line: number; column: number } | null | undefined;
  },
>(x: T, lines: number): T {
  if (lines === 0) return x;
  const up = (p: { line: number; column: number }) =>
    p.line > lines ? { line: p.line - lines, column: p.column } : { line: 1, column: 0 };
  return { ...x, ...(x.pos ? { pos: up(x.pos) } : {}), ...(x.endPos ? { endPos: up(x.endPos) } : {}) };
}

export interface CommandOutcome {
  /** The env id after this command (usable as the next command's env). */
  env: number;
  messages: ReplMessage[];
  sorries: ReplSorry[];
  /** Answered from this session's memory, without sending it. */
  cached: boolean;
  ms: number;
  /** The tactic steps of its info tree, when asked for (`infotree`). */
  tactics?: TacticStep[];
}

/** A command of a request: its chain key (keys.ts), its text, and whether its info tree is asked for. */
export interface SessionCommand {
  key: string;
  text: string;
  infotree?: boolean | undefined;
}

export interface RunOptions {
  /** Aborting it kills the process (a REPL cannot be interrupted mid-command). */
  signal?: AbortSignal;
  onCommand?: (done: number, total: number, cached: boolean) => void;
  /** Once aborted, no further command is sent (StoppedError); the session stays usable. */
  stop?: AbortSignal;
  /** Rewrites a command before it is sent (a heartbeat budget): the text sent and the lines it added on top (undefined: as is). */
  prepare?: (text: string, index: number) => { text: string; lines: number } | undefined;
  /** Whether an outcome may be remembered for reuse (not when this request's own budget cut it short). */
  remember?: (messages: readonly ReplMessage[], sentText: string, index: number) => boolean;
}

/**
 * Items of a response on the command's own lines. The response's own list when nothing moves (no lines
 * on top, or no items): it is this answer's alone (parseResponse makes fresh lists), so it is not copied.
 */
function unshiftAll<T extends Parameters<typeof unshift>[0]>(xs: T[], lines: number): T[] {
  return lines === 0 || xs.length === 0 ? xs : xs.map((x) => unshift(x, lines));
}

/**
 * The REPL's answer to a command sent `lines` below its own start, as its outcome on the command's own
 * lines (sent, so not `cached`). Built field by field, in `withCached`'s order: one shape for every outcome.
 */
function commandOutcome(r: ReplResponse, env: number, lines: number, infotree: boolean, ms: number): CommandOutcome {
  if (r.type === 'command') {
    const out: CommandOutcome = {
      env: r.value.env,
      messages: unshiftAll(r.value.messages, lines),
      sorries: unshiftAll(r.value.sorries, lines),
      cached: false,
      ms,
    };
    if (infotree) out.tactics = unshiftAll(tacticSteps(r.value.infotree), lines);
    return out;
  }
  // The REPL could not run the command (for example an internal exception): report it, keep the env.
  if (r.type === 'error')
    return {
      env,
      messages: [{ severity: 'error', pos: { line: 1, column: 0 }, data: r.value.message }],
      sorries: [],
      cached: false,
      ms,
    };
  throw new ReplError('garbage', 'the REPL answered a command with a proof-step response');
}

/**
 * A remembered outcome as answered from memory. Built field by field: a spread plus a member
 * (`{ ...o, cached }`) takes V8's slow define path on every command (visible in a profile of a miss).
 */
function withCached(o: CommandOutcome): CommandOutcome {
  const out: CommandOutcome = { env: o.env, messages: o.messages, sorries: o.sorries, cached: true, ms: o.ms };
  if (o.tactics) out.tactics = o.tactics;
  return out;
}

export interface RootOutcome {
  env: number;
  messages: ReplMessage[];
  /** The header's imports did not load (see header-probe.ts): why. */
  importFailure?: string | undefined;
}

/** The environment's own header cannot be used: its session never opens. */
export class HeaderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeaderError';
  }
}

export interface SessionOptions {
  spawn: () => ReplProcess;
  log: Log;
  /** Outcomes remembered for prefix reuse. */
  prefixEntries: number;
}

let nextId = 1;

export class LeanSession {
  readonly id = nextId++;
  uses = 0;
  #proc: ReplProcess;
  #roots = new Map<string, RootOutcome>();
  /** Outcomes as sent (`cached: false`); a reuse answers a copy marked `cached`. Asked on every request: a RecentMap. */
  #outcomes: RecentMap<string, CommandOutcome>;
  #poisoned = false;
  #log: Log;

  private constructor(proc: ReplProcess, opts: SessionOptions) {
    this.#proc = proc;
    this.#log = opts.log;
    this.#outcomes = new RecentMap(Math.max(1, opts.prefixEntries));
  }

  /**
   * Spawn a REPL and elaborate `header`; the result is the base root. With `own` (the environment's
   * own header) a header that does not import or elaborate is the environment's failure: the session
   * does not open. Any other header (a request's own, `ignore_imports: false`) is that request's
   * business: the session opens on the failed root, and each request on it gets the failure as an
   * error at its header line, as Lean's own `processHeader` goes on in an empty environment after
   * reporting the import error [lean4 v4.28.0: src/Lean/Elab/Import.lean, `processHeader`].
   */
  static async open(opts: SessionOptions, header: string, signal?: AbortSignal, own = true): Promise<LeanSession> {
    const proc = opts.spawn();
    const session = new LeanSession(proc, opts);
    try {
      const root = await session.#elaborateRoot(header, signal);
      if (!own) return session;
      if (root.importFailure) throw new HeaderError(`the environment header failed to import: ${root.importFailure}`);
      const errors = root.messages.filter((m) => m.severity === 'error');
      if (errors.length > 0)
        throw new HeaderError(
          `the environment header failed to elaborate: ${errors
            .map((m) => m.data)
            .join('; ')
            .slice(0, 500)}`,
        );
      return session;
    } catch (e) {
      proc.kill('closed', 'session failed to open');
      // Its slot in the pool is free only once the process is gone (a cancelled start frees it for another header).
      await proc.exited.catch(noop);
      throw e;
    }
  }

  get pid(): number {
    return this.#proc.pid;
  }

  get healthy(): boolean {
    return this.#proc.alive && !this.#poisoned;
  }

  /** The process tree's usage (`bound`: see ReplProcess.usage). */
  usage(bound?: number): { rssBytes: number; cpuSeconds: number; processes: number } {
    return this.#proc.usage(bound);
  }

  /** How many of `keys` (a chain from `root`) this session can answer without sending. */
  prefixLength(root: string, keys: readonly string[]): number {
    if (!this.#roots.has(root)) return -1;
    let n = 0;
    while (n < keys.length && this.#outcomes.has(keys[n]!)) n++;
    return n;
  }

  /**
   * Elaborate `header` (if this session has not yet) and then the commands, reusing the
   * longest remembered prefix. Any process fault poisons the session.
   */
  async run(
    header: string,
    commands: readonly SessionCommand[],
    opts: RunOptions = {},
  ): Promise<{ root: RootOutcome; outcomes: CommandOutcome[] }> {
    this.uses++;
    try {
      const root = this.#roots.get(rootKey(header)) ?? (await this.#elaborateRoot(header, opts.signal));
      // Sized at once (a first push allocates room for 17).
      const outcomes = new Array<CommandOutcome>(commands.length);
      let env = root.env;
      // After the first command sent, later ones are sent too: a remembered outcome further
      // down the chain was built on an env this request does not have.
      let missed = false;
      for (let i = 0; i < commands.length; i++) {
        const c = commands[i]!;
        const hit: CommandOutcome | undefined = missed ? undefined : this.#outcomes.get(c.key);
        missed ||= hit === undefined;
        const o = hit ? withCached(hit) : await this.#send(c, i, env, opts);
        outcomes[i] = o;
        env = o.env;
        opts.onCommand?.(i + 1, commands.length, o.cached);
      }
      return { root, outcomes };
    } catch (e) {
      if (!(e instanceof StoppedError)) this.#poisoned = true;
      throw e;
    }
  }

  /**
   * Send one command on `env` (unless the request was stopped) and remember its outcome when it may
   * be reused. The outcome itself is remembered and answered: nothing changes it after.
   */
  async #send(c: SessionCommand, i: number, env: number, opts: RunOptions): Promise<CommandOutcome> {
    if (opts.stop?.aborted) throw new StoppedError(opts.stop.reason);
    const prepared = opts.prepare?.(c.text, i);
    const text = prepared ? prepared.text : c.text;
    const t0 = performance.now();
    const r = await this.#proc.send(commandRequest(text, env, c.infotree ? 'original' : undefined), opts.signal);
    const lines = prepared ? prepared.lines : 0;
    const outcome = commandOutcome(r, env, lines, c.infotree === true, Math.round(performance.now() - t0));
    // An info tree can be large: such outcomes are answered, not remembered.
    if (!c.infotree && (opts.remember?.(outcome.messages, text, i) ?? true)) this.#outcomes.set(c.key, outcome);
    return outcome;
  }

  /**
   * One tactic on a proof state this process recorded (`{"tactic", "proofState"}` [repl v4.28.0:
   * REPL/Main.lean, `runProofStep`]): the REPL's answer as is (a proof-step response, or an error
   * such as "Unknown proof state." or "Lean error:\n…"). A process fault poisons the session.
   */
  async step(tactic: string, proofState: number, signal?: AbortSignal): Promise<ReplResponse> {
    // Not a use (`maxUses` counts requests): the proof states a step makes are counted by its
    // lease in `states` (lease.ts), which the pool's retirement weighs. A search gives its process
    // back after every message, so counting steps would retire it every `maxUses` tactics.
    try {
      const r = await this.#proc.send(proofStepRequest(tactic, proofState), signal);
      if (r.type === 'command')
        throw new ReplError('garbage', 'the REPL answered a proof step with a command response');
      return r;
    } catch (e) {
      this.#poisoned = true;
      throw e;
    }
  }

  kill(reason = 'retired'): void {
    this.#poisoned = true;
    this.#proc.kill('closed', reason);
  }

  /** Kill the process mid-command (a deadline past its grace): the command in flight fails as 'aborted'. */
  interrupt(reason: string): void {
    this.#poisoned = true;
    this.#proc.kill('aborted', reason);
  }

  get exited(): Promise<unknown> {
    return this.#proc.exited;
  }

  async #elaborateRoot(header: string, signal?: AbortSignal): Promise<RootOutcome> {
    const probe = probedHeader(header);
    const r = await this.#proc.send(commandRequest(probe.cmd), signal);
    if (r.type !== 'command') {
      throw new ReplError(
        'crashed',
        `the REPL could not elaborate the header: ${r.type === 'error' ? r.value.message : 'unexpected response'}`,
      );
    }
    const verdict = readHeaderProbe(header, probe, r.value.messages);
    // A request's own header that did not import: one error at the header (where Lean itself reports it), instead of
    // a silent empty environment in which every later command fails confusingly.
    const messages: ReplMessage[] = verdict.importFailure
      ? [
          ...verdict.messages,
          { severity: 'error', pos: { line: 1, column: 0 }, endPos: null, data: verdict.importFailure },
        ]
      : verdict.messages;
    const root: RootOutcome = { env: r.value.env, messages, importFailure: verdict.importFailure };
    this.#roots.set(rootKey(header), root);
    this.#log.debug({ session: this.id, env: root.env }, 'root elaborated');
    return root;
  }
}
