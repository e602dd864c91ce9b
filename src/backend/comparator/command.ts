/**
 * The command line of one comparator run. comparator is started as its README says
 * (leanprover/comparator README: `lake env path/to/comparator/binary path/to/config.json`,
 * run in the project directory), with
 *   - the pinned lean4export and landrun builds found by name: comparator at v4.28.0 and v4.29.0 spawns
 *     `cmd := "landrun"` and `cmd := "lean4export"` from PATH [comparator v4.28.0, v4.29.0: Main.lean,
 *     `runSandBoxed`, `runSandBoxedWithStdout`; README.md: "two additional binaries in `PATH`"], so their
 *     folders go first on PATH; from v4.30.0 `M.run` reads COMPARATOR_LEAN4EXPORT and
 *     COMPARATOR_LANDRUN [comparator v4.30.0: Main.lean, `M.run`, `(← IO.getEnv "COMPARATOR_LANDRUN").getD
 *     "landrun"`], which are set too;
 *   - ELAN_TOOLCHAIN naming the environment's toolchain: comparator asks `lean --print-prefix`
 *     and runs `lake build` through elan (Main.lean, `queryLeanPrefix`, `safeLakeBuild`);
 *   - the request's memory cap as RLIMIT_AS of every process (prlimit), with the other
 *     per-process limits of the daemon's config;
 *   - inside this project's bubblewrap jail (backend/process/sandbox.ts): no network, the
 *     toolchain, the environment's project and the comparator builds read-only, a private /tmp,
 *     and only the scratch workspace writable (bound at the jail's workdir). comparator's own
 *     landrun sandbox runs inside it with `--best-effort` (Main.lean, `buildLandrunArgs`), so it
 *     degrades to what Landlock the kernel offers instead of failing.
 * comparator also runs `which git` (Main.lean, `queryGitLocation`): git and which come from the
 * system folders the jail binds.
 */
import path from 'node:path';
import { childEnv, type ProcessLimits } from '../process/launch.ts';
import { bwrapArgs, elanHome, findBwrap, JAIL_WORKDIR, type SandboxKind } from '../process/sandbox.ts';
import { searchDirs, which } from '../../envs/toolchain.ts';

export interface ComparatorTools {
  comparator: string;
  lean4export: string;
  /** landrun, or comparator's scripts/fake-landrun.sh when the config says "shim". */
  landrun: string;
}

export interface CommandInput {
  tools: ComparatorTools;
  toolchain: string;
  projectDir: string;
  /** The host directory of the scratch workspace. */
  workspace: string;
  memoryMb: number;
  limits: ProcessLimits;
  sandbox: SandboxKind;
}

export interface ComparatorCommand {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Paths visible read-only inside the jail (empty without a jail). */
  readOnly: string[];
  /** The only writable host path (the workspace). */
  writable: string;
}

/** Where the workspace is when comparator runs: the jail's workdir, or its host path. */
export const runDir = (sandbox: SandboxKind, workspace: string) => (sandbox === 'bwrap' ? JAIL_WORKDIR : workspace);

function prlimit(memoryMb: number, l: ProcessLimits, parent: NodeJS.ProcessEnv): string[] {
  const bin = which('prlimit', searchDirs(parent)) ?? 'prlimit';
  const flags = [
    `--as=${memoryMb * 2 ** 20}`,
    l.maxProcesses > 0 ? `--nproc=${l.maxProcesses}` : '',
    l.maxOpenFiles > 0 ? `--nofile=${l.maxOpenFiles}` : '',
    l.maxFileSizeMb > 0 ? `--fsize=${l.maxFileSizeMb * 2 ** 20}` : '',
    l.cpuSeconds > 0 ? `--cpu=${l.cpuSeconds}` : '',
  ].filter(Boolean);
  return [bin, ...flags, '--'];
}

/** PATH with the folders of lean4export and landrun first (comparator before v4.30.0 finds them only there). */
export function toolPath(tools: Pick<ComparatorTools, 'lean4export' | 'landrun'>, rest: string | undefined): string {
  const dirs = [path.dirname(tools.lean4export), path.dirname(tools.landrun)];
  return [...new Set(dirs), ...(rest ? [rest] : [])].join(path.delimiter);
}

export function comparatorCommand(input: CommandInput, parent: NodeJS.ProcessEnv): ComparatorCommand {
  const base = childEnv(parent);
  const env: Record<string, string> = {
    ...base,
    PATH: toolPath(input.tools, base.PATH),
    ELAN_TOOLCHAIN: input.toolchain,
    COMPARATOR_LEAN4EXPORT: input.tools.lean4export,
    COMPARATOR_LANDRUN: input.tools.landrun,
  };
  const inner = [
    ...prlimit(input.memoryMb, input.limits, parent),
    'lake',
    'env',
    input.tools.comparator,
    'config.json',
  ];
  if (input.sandbox === 'none')
    return { argv: inner, cwd: input.workspace, env, readOnly: [], writable: input.workspace };

  const readOnly = [elanHome(parent), input.projectDir, ...Object.values(input.tools).map((p) => path.dirname(p))];
  const jailEnv = { ...env, HOME: JAIL_WORKDIR, TMPDIR: '/tmp', ELAN_HOME: elanHome(parent) };
  const args = bwrapArgs({ readOnly, env: jailEnv, tmpMb: input.limits.tmpMb });
  // The workspace replaces the jail's private workdir: bound writable before the root turns read-only.
  const at = args.indexOf('--remount-ro');
  args.splice(at < 0 ? args.length : at, 0, '--bind', input.workspace, JAIL_WORKDIR);
  return {
    argv: [findBwrap(parent) ?? 'bwrap', ...args, '--', ...inner],
    cwd: input.workspace,
    env,
    readOnly: [...new Set(readOnly)].sort(),
    writable: input.workspace,
  };
}
