/**
 * One REPL child process: its own process group (so a kill takes Lake, the REPL and
 * anything they spawned), stderr drained to the log, stdout decoded into responses, one
 * request at a time, RSS watched while a request runs. Any fault (exit, garbage on
 * stdout, abort, memory) kills the whole group: a REPL cannot be interrupted mid-command,
 * so a process that was interrupted is never reused.
 */
import { execa, type ResultPromise } from 'execa';
import type { Log } from '../../log.ts';
import { encodeRequest, FramingError, ResponseDecoder } from '../protocol/framing.ts';
import { parseResponse, type ReplResponse } from '../protocol/schema.ts';
import type { ReplRequest } from '../protocol/requests.ts';
import type { LaunchSpec } from './launch.ts';
import { TreeUsageReader, type TreeUsage } from './rss.ts';

export type ReplFault = 'crashed' | 'garbage' | 'aborted' | 'memory' | 'processes' | 'closed';

export class ReplError extends Error {
  constructor(
    readonly fault: ReplFault,
    message: string,
    readonly stderrTail = '',
  ) {
    super(message);
    this.name = 'ReplError';
  }
}

export interface ReplProcessOptions {
  launch: LaunchSpec;
  log: Log;
  /** Kill the process tree when its resident memory exceeds this (0: no limit). */
  maxRssBytes?: number;
  /** Kill the process tree when it holds more processes than this (0: no limit). Works for root too, unlike RLIMIT_NPROC. */
  maxProcesses?: number;
  /** How often the watchdog looks at the tree (it runs for the process's whole life). */
  rssPollMs?: number;
  /** Read the common command answer by hand beside zod (parseResponse; default true). */
  answerByHand?: boolean;
}

/** Process groups alive in this daemon: killed synchronously if the daemon exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** For tests: the groups still running. */
export const liveProcessGroups = (): number[] => [...liveGroups];

/**
 * The request in flight. Aborting its signal kills the process (the object is the signal's
 * listener, `handleEvent`: no closures per request, each of which costs a defineProperty for
 * its name in the keepNames build); settling it removes the listener.
 */
class Pending {
  constructor(
    private readonly proc: ReplProcess,
    private readonly onResolve: (r: ReplResponse) => void,
    private readonly onReject: (e: ReplError) => void,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this, { once: true });
  }

  handleEvent(): void {
    this.proc.kill('aborted', 'request aborted before the REPL answered');
  }

  resolve(r: ReplResponse): void {
    this.signal?.removeEventListener('abort', this);
    this.onResolve(r);
  }

  reject(e: ReplError): void {
    this.signal?.removeEventListener('abort', this);
    this.onReject(e);
  }
}

export class ReplProcess {
  readonly pid: number;
  readonly exited: Promise<{ code: number | null; signal: string | null; fault: ReplFault | undefined }>;
  #child: ResultPromise;
  #decoder = new ResponseDecoder();
  #pending: Pending | undefined;
  #stderr: string[] = [];
  #dead = false;
  #fault: ReplFault | undefined;
  #faultMessage = '';
  #rssTimer: NodeJS.Timeout | undefined;
  /** Memory and process count of the process tree (usage after each request, and the watchdog). */
  readonly #usage: TreeUsageReader;
  #opts: ReplProcessOptions;

  constructor(opts: ReplProcessOptions) {
    this.#opts = opts;
    installExitHook();
    const [file, ...args] = opts.launch.argv;
    this.#child = execa(file!, args, {
      cwd: opts.launch.cwd,
      env: opts.launch.env,
      extendEnv: false,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      detached: true, // own process group: kill(-pid) reaches every descendant
      cleanup: true,
      encoding: 'utf8',
    });
    this.pid = this.#child.pid ?? -1;
    this.#usage = new TreeUsageReader(this.pid);
    if (this.pid > 0) liveGroups.add(this.pid);
    this.#child.stdout?.setEncoding('utf8');
    this.#child.stderr?.setEncoding('utf8');
    this.#child.stdout?.on('data', (chunk: string) => this.#onStdout(chunk));
    this.#child.stderr?.on('data', (chunk: string) => {
      this.#stderr.push(chunk);
      if (this.#stderr.length > 50) this.#stderr.splice(0, this.#stderr.length - 50);
      opts.log.debug({ pid: this.pid, stderr: chunk.slice(0, 2000) }, 'repl stderr');
    });
    this.#child.stdin?.on('error', () => {}); // EPIPE after death is reported through exit
    this.#startRssWatch();
    this.exited = this.#child.then((r) => {
      this.#dead = true;
      liveGroups.delete(this.pid);
      this.#stopRssWatch();
      this.#usage.close();
      // Kill stragglers in the group (a REPL under lake leaves nothing behind, but a crash might).
      this.#killGroup();
      const fault = this.#fault ?? 'crashed';
      // A spawn failure (missing binary or directory) has no exit code; execa's message says why.
      const why =
        r.exitCode === undefined && r.signal === undefined
          ? `the Lean REPL could not be started: ${r.shortMessage}`
          : `the Lean REPL exited (code ${String(r.exitCode)}, signal ${String(r.signal)})`;
      this.#failPending(new ReplError(fault, this.#fault ? this.#faultMessage : why, this.stderrTail));
      return { code: r.exitCode ?? null, signal: r.signal ?? null, fault: this.#fault };
    });
  }

  get alive(): boolean {
    return !this.#dead;
  }

  get stderrTail(): string {
    return this.#stderr.join('').slice(-4000);
  }

  /** The tree's usage; with `bound`, resident memory may be the last reading while it cannot have passed `bound` (rss.ts). */
  usage(bound?: number): TreeUsage {
    return this.#dead ? { processes: 0, rssBytes: 0, cpuSeconds: 0 } : this.#usage.read(false, bound);
  }

  /** Send one request and wait for its response. Aborting the signal kills the process. */
  send(request: ReplRequest, signal?: AbortSignal): Promise<ReplResponse> {
    if (this.#dead) return Promise.reject(new ReplError('closed', 'the Lean REPL is not running', this.stderrTail));
    if (this.#pending) return Promise.reject(new ReplError('closed', 'the Lean REPL is busy (one request at a time)'));
    if (signal?.aborted) {
      this.kill('aborted', 'request aborted');
      return Promise.reject(new ReplError('aborted', 'request aborted'));
    }
    return new Promise<ReplResponse>((resolve, reject) => {
      this.#pending = new Pending(this, resolve, reject, signal);
      this.#child.stdin?.write(encodeRequest(request));
    });
  }

  /** Kill the whole process group now. Idempotent. */
  kill(fault: ReplFault = 'closed', message = 'killed'): void {
    if (!this.#fault) {
      this.#fault = fault;
      this.#faultMessage = message;
    }
    this.#killGroup();
  }

  #killGroup(): void {
    if (this.pid <= 0) return;
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }

  #onStdout(chunk: string): void {
    let responses: readonly unknown[];
    try {
      responses = this.#decoder.push(chunk);
    } catch (e) {
      const block = e instanceof FramingError ? e.block : '';
      this.#opts.log.warn({ pid: this.pid, output: block.slice(0, 200) }, 'REPL wrote garbage on stdout; killing it');
      this.kill(
        'garbage',
        e instanceof FramingError && e.tooLarge
          ? e.message
          : `the Lean REPL wrote output that is not JSON: ${JSON.stringify(block.slice(0, 120))}`,
      );
      return;
    }
    for (const json of responses) {
      const p = this.#pending;
      if (!p) {
        this.kill('garbage', 'the Lean REPL answered a request nobody sent');
        return;
      }
      this.#pending = undefined;
      try {
        p.resolve(parseResponse(json, this.#opts.answerByHand !== false));
      } catch (e) {
        this.kill('garbage', `unexpected REPL response shape: ${(e as Error).message.slice(0, 300)}`);
        p.reject(new ReplError('garbage', `unexpected REPL response shape: ${(e as Error).message.slice(0, 300)}`));
      }
    }
  }

  #failPending(e: ReplError): void {
    const p = this.#pending;
    this.#pending = undefined;
    p?.reject(e);
  }

  /** The watchdog: memory and process count, for the process's whole life (work can outlive a request). */
  #startRssWatch(): void {
    const maxRss = this.#opts.maxRssBytes ?? 0;
    const maxProcs = this.#opts.maxProcesses ?? 0;
    if ((maxRss <= 0 && maxProcs <= 0) || this.#rssTimer) return;
    this.#rssTimer = setInterval(() => {
      const u = this.#usage.read(true);
      if (maxRss > 0 && u.rssBytes > maxRss) {
        this.#opts.log.warn(
          { pid: this.pid, rssMb: Math.round(u.rssBytes / 2 ** 20) },
          'REPL over its memory limit; killing it',
        );
        this.kill(
          'memory',
          `the Lean process exceeded its memory limit (${Math.round(u.rssBytes / 2 ** 20)} MiB > ${Math.round(maxRss / 2 ** 20)} MiB)`,
        );
      } else if (maxProcs > 0 && u.processes > maxProcs) {
        this.#opts.log.warn({ pid: this.pid, processes: u.processes }, 'REPL over its process limit; killing it');
        this.kill('processes', `the Lean process started too many processes (${u.processes} > ${maxProcs})`);
      }
    }, this.#opts.rssPollMs ?? 500);
    this.#rssTimer.unref();
  }

  #stopRssWatch(): void {
    if (this.#rssTimer) clearInterval(this.#rssTimer);
    this.#rssTimer = undefined;
  }
}
