/**
 * Runs leanprover/comparator on one challenge/solution pair: checks that the pinned builds
 * exist, writes a private scratch workspace, starts the command (command.ts) in its own
 * process group, bounds its output, kills the whole group at the request's deadline, and
 * removes the workspace.
 *
 * Success: comparator prints `Your solution is okay!` as its last line and returns from
 * `main` (Main.lean, `compareIt`), so the exit status is 0; every failure throws, which makes
 * the Lean runtime print `uncaught exception: …` and exit with 1. The phrase alone is not
 * trusted: the solution's own build output is part of the stream (`lake build` prints its
 * messages, so `#eval IO.println "Your solution is okay!"` would print it), so `okay` needs exit
 * status 0 and the phrase as the last line of stdout.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { comparatorPaths, readsToolVariables, type ComparatorConfig } from '../../envs/comparator-config.ts';
import { toolchainTag, type EnvironmentConfig } from '../../envs/config.ts';
import { searchDirs, which } from '../../envs/toolchain.ts';
import type { ProcessLimits } from '../process/launch.ts';
import { bwrapStatus, type SandboxKind } from '../process/sandbox.ts';
import {
  comparatorCommand,
  runDir,
  type CommandInput,
  type ComparatorCommand,
  type ComparatorTools,
} from './command.ts';
import { BoundedOutput, LastLine } from './output.ts';
import { writeWorkspace } from './workspace.ts';

export const SUCCESS_PHRASE = 'Your solution is okay!';
const SETUP_HINT =
  'run `npm run lean:setup` (it builds comparator, lean4export and landrun at the pinned commits; see docs/tools.md, "comparator")';

export interface ComparatorRequest {
  env: EnvironmentConfig;
  challenge: string;
  solution: string;
  theoremNames: string[];
  definitionNames: string[];
  memoryMb: number;
  signal: AbortSignal;
}

export interface ComparatorResult {
  okay: boolean;
  output: string;
  exitStatus: number;
  ms: number;
}

export interface ComparatorBackendOptions {
  root: string;
  config: ComparatorConfig;
  sandbox: SandboxKind;
  limits: ProcessLimits;
  /** The process environment comparator's tools are found in and inherit from (PATH, ELAN_HOME…). */
  parentEnv: NodeJS.ProcessEnv;
  /** Where scratch workspaces are made (default: the OS temp folder). */
  tmpDir?: string;
  /** Test seam: the command line (a process double instead of comparator). */
  command?: (input: CommandInput) => ComparatorCommand;
  /** Test seam: which tools count as built. */
  exists?: (file: string) => boolean;
}

export class ComparatorBackend {
  readonly #o: ComparatorBackendOptions;

  constructor(opts: ComparatorBackendOptions) {
    this.#o = opts;
  }

  get defaultMemoryMb(): number {
    return this.#o.config.defaultMemoryMb;
  }

  /** The tools for an environment, or every missing piece (never starts anything but bwrap's one-off self-test). */
  locate(env: EnvironmentConfig): { tools: ComparatorTools } | { missing: string[] } {
    const exists = this.#o.exists ?? existsSync;
    const parent = this.#o.parentEnv;
    const tag = toolchainTag(env.lean_toolchain);
    if (!tag) return { missing: [`a Lean version in lean_toolchain "${env.lean_toolchain}"`] };
    const missing: string[] = [];
    if (!this.#o.config.pins[tag])
      missing.push(
        `a comparator pin for ${tag} (config comparator.pins has ${Object.keys(this.#o.config.pins).join(', ') || 'none'})`,
      );
    const p = comparatorPaths(this.#o.root, this.#o.config, tag);
    if (!exists(p.comparator)) missing.push(`the comparator build ${p.comparator}`);
    if (!exists(p.lean4export)) missing.push(`the lean4export build ${p.lean4export}`);
    const landrun = this.#o.config.landrun === 'shim' ? p.shim : p.landrun;
    if (this.#o.config.landrun === 'shim' && !readsToolVariables(tag))
      missing.push(
        `the landrun build ${p.landrun}: comparator ${tag} has no scripts/fake-landrun.sh and runs \`landrun\` from PATH only ` +
          '(the "shim" setting needs comparator v4.30.0 or later)',
      );
    else if (!exists(landrun))
      missing.push(
        this.#o.config.landrun === 'shim'
          ? `comparator's landrun shim ${landrun}`
          : `the landrun build ${landrun} (or set comparator.landrun to "shim")`,
      );
    // Main.lean, queryGitLocation: `which git` must succeed.
    if (!which('git', searchDirs(parent))) missing.push('git on PATH (comparator runs `which git`)');
    if (missing.length > 0) return { missing };
    if (this.#o.sandbox === 'bwrap') {
      const b = bwrapStatus(parent);
      if (!b.usable) return { missing: [b.reason] };
    }
    return { tools: { comparator: p.comparator, lean4export: p.lean4export, landrun } };
  }

  /** A readable sentence naming what is missing (for the environment-unavailable answer). */
  static describeMissing(env: EnvironmentConfig, missing: string[]): string {
    return `environment ${env.name} cannot run comparator: missing ${missing.join('; ')}; ${SETUP_HINT}`;
  }

  async run(req: ComparatorRequest, tools: ComparatorTools): Promise<ComparatorResult> {
    const t0 = performance.now();
    const workspace = mkdtempSync(path.join(this.#o.tmpDir ?? os.tmpdir(), 'comparator-'));
    try {
      writeWorkspace(workspace, {
        challenge: req.challenge,
        solution: req.solution,
        theoremNames: req.theoremNames,
        definitionNames: req.definitionNames,
        toolchain: req.env.lean_toolchain,
        projectDir: req.env.project_dir,
        runDir: runDir(this.#o.sandbox, workspace),
      });
      // A request may lower the memory cap, never raise it above the daemon's own address-space limit.
      const ceiling = this.#o.limits.addressSpaceMb > 0 ? this.#o.limits.addressSpaceMb : Infinity;
      const input: CommandInput = {
        tools,
        toolchain: req.env.lean_toolchain,
        projectDir: req.env.project_dir,
        workspace,
        memoryMb: Math.min(req.memoryMb, ceiling),
        limits: this.#o.limits,
        sandbox: this.#o.sandbox,
      };
      const cmd = (this.#o.command ?? ((i) => comparatorCommand(i, this.#o.parentEnv)))(input);
      const r = await runBounded(cmd, this.#o.config.outputLimitBytes, req.signal);
      return {
        ...r,
        okay: r.exitStatus === 0 && r.lastStdoutLine === SUCCESS_PHRASE,
        ms: Math.round(performance.now() - t0),
      };
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }
}

/** Run a command in its own process group, capturing bounded output; the signal kills the group. */
async function runBounded(
  cmd: ComparatorCommand,
  limit: number,
  signal: AbortSignal,
): Promise<{ output: string; exitStatus: number; lastStdoutLine: string }> {
  const out = new BoundedOutput(limit);
  const last = new LastLine();
  const [file, ...args] = cmd.argv;
  const child = execa(file!, args, {
    cwd: cmd.cwd,
    env: cmd.env,
    extendEnv: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    detached: true,
    cleanup: true,
    encoding: 'utf8',
  });
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (c: string) => {
    out.push(c);
    last.push(c);
  });
  child.stderr?.on('data', (c: string) => out.push(c));
  if (signal.aborted) killGroup();
  signal.addEventListener('abort', killGroup, { once: true });
  try {
    const r = await child;
    killGroup(); // stragglers left in the group
    if (r.exitCode === undefined && r.signal === undefined)
      out.push(`\n[comparator could not be started: ${r.shortMessage}]\n`);
    const exitStatus = r.exitCode ?? (r.signal ? 128 + (os.constants.signals[r.signal] ?? 0) : 127);
    return { output: out.text(), exitStatus, lastStdoutLine: last.value };
  } finally {
    signal.removeEventListener('abort', killGroup);
  }
}
